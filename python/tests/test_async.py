"""The asyncio client (pagewire.connect, AsyncSession) against the real server and Chromium, the
guarantees of the TypeScript SDK tested the same way (test/client/sdk.test.ts): act outcomes as
results and errors as typed exceptions, a socket killed mid-act (the page sees one click and the
caller gets the act's real result), an answer lost on the way, events across a reconnect (none
lost, none twice), cancelling an act's task, and client budgets. Connections are broken by a
loopback TCP proxy between the SDK and the server.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from typing import Any, Awaitable, Callable

import pytest

import pagewire
from pagewire import Backoff, RpcError, TransportError

from .conftest import Pages, Server, TcpProxy


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 120))


def ref_of(observation: Any, name: str) -> str:
    for element in observation["elements"]:
        if element["name"] == name:
            return str(element["ref"])
    raise AssertionError(f"no element named {name} in\n{observation['tree']}")


class Console:
    """The page's own record of what happened: its console lines, read by a client of its own."""

    def __init__(self, stream: pagewire.AsyncEventStream) -> None:
        self.stream = stream
        self.texts: list[str] = []

    async def seen(self, text: str) -> None:
        while text not in self.texts:
            event = await self.stream.__anext__()
            self.texts.append(event["data"]["text"])


async def console_of(watcher: pagewire.AsyncClient, session_id: str) -> Console:
    stream = watcher.session(session_id).events(kinds=["console"], after_seq=0)
    await stream.ready
    return Console(stream)


def record_frames(client: pagewire.AsyncClient) -> Callable[[str], list[dict[str, Any]]]:
    """Every request the client writes to a socket (first send and re-sends), by method."""
    connection = client._connection
    written: list[str] = []
    write = connection._write

    async def recording(entry: Any) -> None:
        before = entry.written
        await write(entry)
        if entry.written and not before:
            written.append(entry.frame)

    connection._write = recording  # type: ignore[method-assign]
    return lambda method: [frame for frame in map(json.loads, written) if frame["method"] == method]


def via_proxy(proxy: TcpProxy, server: Server, **backoff: float) -> Any:
    return pagewire.connect(f"ws://127.0.0.1:{proxy.port}/", token=server.token, reconnect=Backoff(initial_delay=0.02, max_delay=0.2, **backoff))


async def checkout(client: pagewire.AsyncClient, pages: Pages, name: str, delay: int = 300) -> tuple[pagewire.AsyncSession, Any]:
    session = await client.create_session(name=name)
    await session.tabs.new(url=pages.url(f"/sdk/checkout.html?delay={delay}"))
    return session, await session.observe()


def place_order(session: pagewire.AsyncSession, page: Any, confirmed: str = "Order confirmed (1)") -> asyncio.Future[Any]:
    """The checkout's order, as a task: the page logs its click at once and confirms after its delay."""
    return asyncio.ensure_future(session.act({"action": "click", "ref": ref_of(page, "Place order")}, wait_for={"text": confirmed}))


async def watched_checkout(
    client: pagewire.AsyncClient, watcher: pagewire.AsyncClient, pages: Pages, name: str, delay: int
) -> tuple[Callable[[str], list[dict[str, Any]]], pagewire.AsyncSession, Any, Console]:
    """The client's frames, a checkout session, its first observation and its console as the watcher sees it."""
    frames = record_frames(client)
    session, page = await checkout(client, pages, name, delay)
    return frames, session, page, await console_of(watcher, session.id or "")


def test_sign_in_flow_with_a_batch_and_wait_for(server: Server, pages: Pages) -> None:
    async def test() -> None:
        async with pagewire.connect(server.url) as client, client.create_session(name="py-sign-in") as session:
            assert session.id is not None and session.target_id is not None
            opened = await session.tabs.new(url=pages.url("/sdk/sign-in.html"))
            assert (await session.tabs.list())["tabs"][-1]["target_id"] == opened["target_id"]
            form = await session.observe()
            result = await session.act(
                [
                    {"action": "fill", "ref": ref_of(form, "Email"), "text": "alice@example.com"},
                    {"action": "fill", "ref": ref_of(form, "Password"), "text": "correct horse"},
                    {"action": "click", "ref": ref_of(form, "Sign in")},
                ],
                state_id=form["state_id"],
                wait_for={"text": "Signed in as alice@example.com"},
            )
            assert result["status"] == "verified", result
            assert result["completed"] == [0, 1, 2]
            assert "Signed in as alice@example.com" in result["fresh_state"]["tree"]
            # The typed password never comes back.
            assert "correct horse" not in json.dumps(result)
            assert session.last_observation is not None and session.last_observation["state_id"] == result["fresh_state"]["state_id"]
            # The same state again: an outcome, not an exception.
            stale = await session.act({"action": "click", "ref": ref_of(form, "Sign in")}, state_id=form)
            assert (stale["status"], stale["error_type"]) == ("stale_observation", "stale_state")

            with pytest.raises(RpcError) as missing:
                await client.session("s_not_there").observe()
            assert (missing.value.error_type, missing.value.code) == ("session_not_found", -32004)
            assert pagewire.is_pagewire_error(missing.value, "session_not_found")
            with pytest.raises(RpcError) as invalid:
                await session.act({"action": "click", "ref": "button"})
            assert invalid.value.error_type == "invalid_params"
            assert isinstance(invalid.value.data["issues"], list)
            assert (await session.frames())["frames"][0]["parent_frame_id"] is None

    run(test)


def test_a_socket_killed_mid_act_the_page_saw_one_click_and_the_caller_gets_the_real_result(
    server: Server, pages: Pages, proxy: TcpProxy
) -> None:
    async def test() -> None:
        async with via_proxy(proxy, server) as client, pagewire.connect(server.url) as watcher:
            frames, session, page, log = await watched_checkout(client, watcher, pages, "py-kill", 1200)
            acting = place_order(session, page)
            await log.seen("order clicked 1")
            proxy.cut()
            result = await acting
            assert result["status"] == "verified", result
            assert "Orders placed: 1" in result["fresh_state"]["tree"]
            assert client.reconnects == 1
            acts = frames("act")
            assert len(acts) == 2, "sent once, then once more on the new socket"
            assert acts[0]["params"]["request_id"] == acts[1]["params"]["request_id"]
            assert re.fullmatch(r"sdk_[0-9a-f]{32}", acts[0]["params"]["request_id"])
            await log.seen("order confirmed 1")
            assert [text for text in log.texts if text.startswith("order clicked")] == ["order clicked 1"]
            await session.close()

    run(test)


def test_an_answer_lost_on_the_way_is_answered_from_the_request_id_record(server: Server, pages: Pages, proxy: TcpProxy) -> None:
    async def test() -> None:
        async with via_proxy(proxy, server) as client, pagewire.connect(server.url) as watcher:
            frames, session, page, log = await watched_checkout(client, watcher, pages, "py-lost-reply", 100)
            lost = proxy.swallow_replies()
            acting = place_order(session, page)
            await asyncio.get_running_loop().run_in_executor(None, lost.wait)
            await log.seen("order confirmed 1")  # the server answered; the answer never reached the SDK
            proxy.cut()
            result = await acting
            assert (result["status"], result.get("replayed")) == ("verified", True)
            assert len(frames("act")) == 2
            assert "Orders placed: 1" in (await session.observe())["tree"]
            assert [text for text in log.texts if text.startswith("order clicked")] == ["order clicked 1"]
            await session.close()

    run(test)


def test_reads_in_flight_are_sent_again_and_a_call_that_must_not_run_twice_fails_with_connection_lost(
    server: Server, pages: Pages, proxy: TcpProxy
) -> None:
    async def test() -> None:
        async with via_proxy(proxy, server) as client, pagewire.connect(server.url) as watcher:
            frames, session, page, log = await watched_checkout(client, watcher, pages, "py-reads", 1200)
            acting = place_order(session, page)
            await log.seen("order clicked 1")
            opened = len(frames("tabs.new"))
            # Both wait behind the act in the session's queue on the server.
            reading = asyncio.ensure_future(session.tabs.list())
            opening = asyncio.ensure_future(session.tabs.new(url="about:blank"))
            while len(frames("tabs.list")) < 1 or len(frames("tabs.new")) < opened + 1:
                await asyncio.sleep(0.01)
            proxy.cut()
            tabs, act = await asyncio.gather(reading, acting)
            with pytest.raises(TransportError) as lost:
                await opening
            assert act["status"] == "verified"
            assert len(tabs["tabs"]) >= 2
            assert len(frames("tabs.list")) == 2, "the read was written again"
            assert len(frames("tabs.new")) == opened + 1, "tabs.new was not"
            assert lost.value.error_type == "connection_lost"
            assert isinstance(lost.value, ConnectionError)
            await session.close()

    run(test)


def test_events_across_a_reconnect_every_event_once_in_order(server: Server, pages: Pages, proxy: TcpProxy) -> None:
    async def test() -> None:
        async with via_proxy(proxy, server) as client, pagewire.connect(server.url) as watcher:
            session, page = await checkout(client, pages, "py-events")
            tick = ref_of(page, "Log tick")
            # The page is driven by another client on its own socket, which the proxy does not touch.
            driver = watcher.session(session.id)
            await driver.observe()

            async def click_tick() -> None:
                observed = await driver.observe()
                assert (await driver.act({"action": "click", "ref": tick}, state_id=observed))["status"] == "completed"

            async def take(stream: pagewire.AsyncEventStream, n: int) -> list[str]:
                return [(await stream.__anext__())["data"]["text"] for _ in range(n)]

            async with session.events(kinds=["console"], after_seq=0) as every:
                await every.ready
                for _ in range(3):
                    await click_tick()
                received = await take(every, 3)
                live_only = session.events(kinds=["console"])
                await live_only.ready
                proxy.refuse(True)
                proxy.cut()
                for _ in range(3):
                    await click_tick()  # published while the SDK is away
                proxy.refuse(False)
                received += await take(every, 3)
                for _ in range(2):
                    await click_tick()
                received += await take(every, 2)
                assert received == [f"tick {n}" for n in range(1, 9)]
                assert client.reconnects >= 1
                assert await take(live_only, 5) == [f"tick {n}" for n in range(4, 9)]
                await live_only.aclose()
                seqs_after = every.last_seq
            assert seqs_after is not None
            with pytest.raises(StopAsyncIteration):
                await every.__anext__()
            await session.close()

    run(test)


def test_cancelling_the_task_of_an_act_sends_cancel_and_returns_outcome_unknown(server: Server, pages: Pages) -> None:
    async def test() -> None:
        async with pagewire.connect(server.url, grace=3) as client, pagewire.connect(server.url) as watcher:
            session, page = await checkout(client, pages, "py-cancel", 100)
            log = await console_of(watcher, session.id or "")
            loop = asyncio.get_running_loop()
            acting = asyncio.ensure_future(
                session.act({"action": "click", "ref": ref_of(page, "Place order")}, wait_for={"text": "This never appears"}, timeout_ms=20_000)
            )
            await log.seen("order clicked 1")
            started = loop.time()
            acting.cancel()
            result = await acting
            assert loop.time() - started < 15, "at once, not at the end of timeout_ms"
            assert (result["status"], result["error_type"]) == ("outcome_unknown", "operation_cancelled")
            # The cancel reached the server: the session is free again at once.
            after = await asyncio.wait_for(session.observe(), 15)
            assert "Orders placed: 1" in after["tree"]

            # The client-side budget (timeout) runs out the same way, as a timeout.
            slow = await session.act(
                {"action": "click", "ref": ref_of(after, "Place order")}, wait_for={"text": "This never appears"}, timeout_ms=20_000, timeout=1.0
            )
            assert (slow["status"], slow["error_type"]) == ("outcome_unknown", "operation_cancelled")
            await log.seen("order clicked 2")
            # timeout_ms is the server's budget: past it, an unmet wait_for is an outcome.
            unmet = await session.act({"action": "click", "ref": ref_of(await session.observe(), "Place order")}, wait_for={"text": "Never"}, timeout_ms=3000)
            assert (unmet["status"], unmet["postcondition"]) == ("condition_not_met", "unmet")
            await session.close()

    run(test)


def test_a_server_that_stays_away_fails_calls_and_streams_with_connection_closed(server: Server, proxy: TcpProxy) -> None:
    async def test() -> None:
        async with via_proxy(proxy, server, give_up_after=0.4) as client:
            session = await client.create_session(name="py-give-up")
            stream = session.events(kinds=["console"])
            await stream.ready
            proxy.refuse(True)
            proxy.cut()
            info, event = await asyncio.gather(client.server_info(), stream.__anext__(), return_exceptions=True)
            assert isinstance(info, TransportError) and info.error_type == "connection_closed"
            assert isinstance(event, TransportError) and event.error_type == "connection_closed"
            assert "could not reconnect" in str(info)
            assert proxy.accepted == 1, "the refused attempts never got through"
            proxy.refuse(False)
        async with pagewire.connect(server.url) as other:
            await other.session(session.id).close()

    run(test)


def test_screenshots_are_bytes_with_their_scale_and_the_safety_surface_is_reachable(private_server: Any, pages: Pages) -> None:
    origin = pages.origin
    secret = "hunter2-shop-secret"
    served = private_server(
        "--secret", f"SHOP_PASSWORD@{origin}", "--block-domain", "blocked.example", env={"PAGEWIRE_SECRET_SHOP_PASSWORD": secret}
    )

    async def test() -> None:
        async with pagewire.connect(served.url) as client:
            info = await client.server_info()
            assert info["secrets"] == [{"name": "SHOP_PASSWORD", "origins": [origin]}]
            assert info["domain_policy"]["block"] == ["blocked.example"]
            async with client.create_session(name="py-safety", allow_domains=["127.0.0.1"], trace=True) as session:
                with pytest.raises(RpcError) as refused:
                    await session.tabs.new(url="http://localhost:1/")
                assert refused.value.error_type == "forbidden"
                await session.tabs.new(url=pages.url("/sdk/sign-in.html"))
                form = await session.observe()
                filled = await session.act({"action": "fill", "ref": ref_of(form, "Password"), "secret": "SHOP_PASSWORD"})
                assert filled["status"] == "completed", filled
                assert secret not in json.dumps(filled)
                shot = await session.screenshot(max_side=300)
                assert shot.mime == "image/png" and shot.data.startswith(b"\x89PNG")
                assert shot.scale is not None and 0 < shot.scale < 1
                assert shot.raw["width"] == shot.width
                annotated = await session.screenshot(annotate=True, max_side=300)
                assert annotated.state_id == filled["fresh_state"]["state_id"] and isinstance(annotated.not_drawn, list)
                pdf = await session.pdf(landscape=True, paper="letter")
                assert pdf["pages"] >= 1
                with open(pdf["path"], "rb") as file:
                    printed = file.read()
                assert printed.startswith(b"%PDF-") and len(printed) == pdf["size"] and secret.encode() not in printed
                log = await session.network()
                assert isinstance(log["entries"], list)
                state = await session.storage_state()
                assert set(state) == {"cookies", "origins"}
                stopped = await session.trace_stop()
                assert stopped["recording"] is False and stopped["steps"] >= 7
                trace = await session.trace_export()
                with open(trace["path"], "rb") as file:
                    recorded = file.read()
                assert len(recorded) == trace["size"] and trace["frames"] >= 2
                with zipfile.ZipFile(io.BytesIO(recorded)) as archive:
                    assert archive.namelist()[:3] == ["trace.json", "steps.jsonl", "events.jsonl"]
                    inside = b"".join(archive.read(name) for name in archive.namelist())
                assert secret.encode() not in recorded and secret.encode() not in inside

    run(test)


def test_wait_answers_with_an_observation_met_or_not_and_an_act_goes_on_from_it(server: Server, pages: Pages) -> None:
    async def test() -> None:
        async with pagewire.connect(server.url) as client, client.create_session(name="py-wait") as session:
            await session.tabs.new(url=pages.url("/autosave.html?restore_ms=1500"))
            met = await session.wait(text="Draft restored", timeout_ms=10_000)
            assert met["status"] == "met", met
            assert "Draft restored" in met["observation"]["tree"]
            assert session.last_observation is not None and session.last_observation["state_id"] == met["observation"]["state_id"]
            unmet = await session.wait(selector="#published", timeout_ms=300)
            assert unmet["status"] == "condition_not_met"
            assert "Save draft" in unmet["observation"]["tree"]
            # The observation the wait answered with is what the next act acts on.
            saved = await session.act({"action": "click", "ref": ref_of(unmet["observation"], "Save draft")})
            assert saved["status"] == "completed", saved
            with pytest.raises(RpcError) as invalid:
                await session.wait(text="a", selector="b")
            assert invalid.value.error_type == "invalid_params"

    run(test)


def test_the_client_reconnects_to_the_instance_its_first_socket_reached(private_server: Any) -> None:
    # Behind a balancer a reconnect must reach the instance that holds the sessions (PROTOCOL.md §13, "Fleet").
    served = private_server("--instance-id", "py-async-a")

    async def test() -> None:
        async with pagewire.connect(served.url) as client, client.create_session(name="py-fleet") as session:
            assert client.instance == "py-async-a"
            assert session.id is not None and session.id.startswith("s_py-async-a_")
    run(test)


def test_create_session_passes_endpoint_through(server: Server) -> None:
    async def test() -> None:
        async with pagewire.connect(server.url) as client:
            with pytest.raises(RpcError) as refused:
                await client.create_session(endpoint="ws://10.0.0.5:3000/?token=farm-secret")
            assert refused.value.error_type == "forbidden"
            assert "farm-secret" not in str(refused.value), "the URL's query is never echoed"

    run(test)
