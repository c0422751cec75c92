"""The synchronous client (pagewire.Client, Session) over POST /rpc: the same sign-in flow as the
asyncio one, events by long poll (none lost, none twice, across a server that went away for a
while), an act whose connection is cut mid-act (the page saw one click and the caller gets the
act's real result through its request_id), and the budgets.
"""

from __future__ import annotations

import json
import threading
import time
import zipfile
from typing import Any

import pytest

import pagewire
from pagewire import Backoff, RpcError, TransportError

from .conftest import Pages, Server, TcpProxy


def ref_of(observation: Any, name: str) -> str:
    for element in observation["elements"]:
        if element["name"] == name:
            return str(element["ref"])
    raise AssertionError(f"no element named {name} in\n{observation['tree']}")


def console_texts(session: pagewire.Session) -> list[str]:
    return [event["data"]["text"] for event in session.poll_events(after_seq=0, kinds=["console"])["events"]]


def test_the_sign_in_flow_over_post_rpc(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-sign-in") as session:
        assert client.server_info()["name"] == "pagewire"
        session.tabs.new(url=pages.url("/sdk/sign-in.html"))
        form = session.observe()
        result = session.act(
            [
                {"action": "fill", "ref": ref_of(form, "Email"), "text": "bob@example.com"},
                {"action": "fill", "ref": ref_of(form, "Password"), "text": "correct horse"},
                {"action": "click", "ref": ref_of(form, "Sign in")},
            ],
            wait_for={"text": "Signed in as bob@example.com"},
        )
        assert result["status"] == "verified", result
        assert "correct horse" not in json.dumps(result)
        assert session.last_observation == result["fresh_state"]
        stale = session.act({"action": "click", "ref": ref_of(form, "Sign in")}, state_id=form)
        assert stale["error_type"] == "stale_state"
        with pytest.raises(RpcError) as missing:
            client.session("s_not_there").observe()
        assert missing.value.error_type == "session_not_found"
        # The HTTP door refuses what needs a lasting connection, with the way to go instead.
        with pytest.raises(RpcError) as subscribe:
            client.call("events.subscribe", {"session_id": session.id})
        assert subscribe.value.error_type == "invalid_request" and "events.poll" in str(subscribe.value)
        shot = session.screenshot(max_side=200)
        assert shot.data.startswith(b"\x89PNG") and shot.scale is not None
        assert shot.state_id is None and shot.not_drawn is None


def test_an_annotated_screenshot_names_the_state_it_drew(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-annotate") as session:
        session.tabs.new(url=pages.url("/team-console.html"))
        with pytest.raises(RpcError) as unobserved:
            session.screenshot(annotate=True)
        assert unobserved.value.error_type == "invalid_params" and "observe first" in str(unobserved.value)
        observed = session.observe()
        shot = session.screenshot(annotate=True)
        assert shot.data.startswith(b"\x89PNG")
        assert shot.state_id == observed["state_id"]
        assert ref_of(observed, "Export members (CSV)") in (shot.not_drawn or [])
        only = session.screenshot(annotate=True, refs=[ref_of(observed, "Invite member")], format="jpeg")
        assert only.mime == "image/jpeg" and only.not_drawn == []
        with pytest.raises(RpcError) as unknown:
            session.screenshot(annotate=True, refs=["@999"])
        assert unknown.value.error_type == "invalid_params" and "@999" in str(unknown.value)


def test_pdf_prints_the_tab_to_a_file_of_the_session_folder(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-pdf") as session:
        session.tabs.new(url=pages.url("/invoice.html"))
        pdf = session.pdf(paper="a4", ranges="1-2")
        assert pdf["pages"] == 2 and pdf["path"].endswith(".pdf") and f"/{session.id}/" in pdf["path"]
        with open(pdf["path"], "rb") as file:
            data = file.read()
        assert data.startswith(b"%PDF-") and len(data) == pdf["size"]
        with pytest.raises(RpcError) as refused:
            session.pdf(ranges="first two")
        assert refused.value.error_type == "invalid_params"


def test_a_trace_records_the_calls_and_exports_a_zip(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-trace") as session:
        session.tabs.new(url=pages.url("/counter.html"))
        assert session.trace_start() == {"recording": True}
        observed = session.observe()
        button = next(element for element in observed["elements"] if element["role"] == "button")
        session.act({"action": "click", "ref": button["ref"]}, state_id=observed)
        assert session.trace_stop() == {"recording": False, "steps": 2}
        trace = session.trace_export()
        assert trace["steps"] == 2 and trace["frames"] == 2 and trace["dropped_frames"] == 0
        assert f"/{session.id}/pagewire-trace-{session.id}-" in trace["path"]
        with zipfile.ZipFile(trace["path"]) as archive:
            header = json.loads(archive.read("trace.json"))
            steps = [json.loads(line) for line in archive.read("steps.jsonl").splitlines()]
        assert header["format"] == "pagewire-trace" and header["version"] == 1 and header["steps"] == 2
        assert [step["method"] for step in steps] == ["observe", "act"] and steps[1]["acted_on"] == 1


def test_a_lone_navigation_needs_no_observation(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-open") as session:
        session.tabs.new()
        opened = session.act({"action": "navigate", "url": pages.url("/sdk/sign-in.html")})
        assert opened["status"] == "completed", opened
        assert 'button "Sign in"' in opened["fresh_state"]["tree"]
        moved = session.act({"action": "navigate", "url": pages.url("/sdk/checkout.html")})
        assert moved["status"] == "completed", moved
        back = session.act([{"action": "back"}])
        assert back["status"] == "completed", back
        assert 'button "Sign in"' in back["fresh_state"]["tree"]
        with pytest.raises(TypeError):
            pagewire.Client(server.url).session(session.id).act({"action": "scroll", "delta_y": 0})


def test_a_big_page_in_parts_within_max_bytes_every_element_once(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-parts") as session:
        session.tabs.new(url=pages.url("/large-table.html"))
        whole = session.observe()
        part = session.observe(max_bytes=4096)
        refs = [element["ref"] for element in part["elements"]]
        parts = 1
        while "next_cursor" in part:
            assert len(json.dumps(part, ensure_ascii=False, separators=(",", ":")).encode()) <= 4096
            part = session.observe(cursor=part["next_cursor"], max_bytes=4096)
            refs += [element["ref"] for element in part["elements"]]
            parts += 1
        assert parts > 1
        assert refs == [element["ref"] for element in whole["elements"]]
        with pytest.raises(RpcError) as refused:
            session.observe(cursor="not-a-cursor")
        assert refused.value.error_type == "invalid_params"


def test_events_by_long_poll_every_event_once_across_a_server_that_went_away(server: Server, pages: Pages, proxy: TcpProxy) -> None:
    with pagewire.Client(f"http://127.0.0.1:{proxy.port}", token=server.token, reconnect=Backoff(initial_delay=0.02, max_delay=0.2)) as client:
        session = client.create_session(name="py-sync-events")
        session.tabs.new(url=pages.url("/sdk/checkout.html"))
        tick = ref_of(session.observe(), "Log tick")
        driver = pagewire.Client(server.url).session(session.id)

        def click_tick() -> None:
            assert driver.act({"action": "click", "ref": tick}, state_id=driver.observe())["status"] == "completed"

        events = session.events(kinds=["console"], after_seq=0)
        for _ in range(3):
            click_tick()
        received = [next(events)["data"]["text"] for _ in range(3)]
        proxy.refuse(True)
        proxy.cut()
        late = threading.Timer(0.5, lambda: proxy.refuse(False))
        late.start()
        for _ in range(3):
            click_tick()  # published while the SDK cannot reach the server
        received += [next(events)["data"]["text"] for _ in range(3)]
        late.join()
        assert received == [f"tick {n}" for n in range(1, 7)]
        # A long poll answers when the event comes, not at the end of its wait.
        started = time.monotonic()
        clicking = threading.Timer(0.3, click_tick)
        clicking.start()
        assert next(events)["data"]["text"] == "tick 7"
        assert time.monotonic() - started < 10
        clicking.join()
        events.close()
        session.close()


def test_a_connection_cut_mid_act_the_page_saw_one_click_and_the_re_sent_act_answers_from_its_record(
    server: Server, pages: Pages, proxy: TcpProxy
) -> None:
    with pagewire.Client(f"http://127.0.0.1:{proxy.port}/?token={server.token}", reconnect=Backoff(initial_delay=0.02, max_delay=0.2)) as client:
        with client.create_session(name="py-sync-cut") as session:
            session.tabs.new(url=pages.url("/sdk/checkout.html?delay=1200"))
            page = session.observe()
            watcher = pagewire.Client(server.url).session(session.id)

            def cut_once_clicked() -> None:
                while "order clicked 1" not in console_texts(watcher):
                    time.sleep(0.02)
                proxy.cut()

            cutter = threading.Thread(target=cut_once_clicked)
            cutter.start()
            result = session.act({"action": "click", "ref": ref_of(page, "Place order")}, wait_for={"text": "Order confirmed (1)"})
            cutter.join()
            assert result["status"] == "verified", result
            assert "Orders placed: 1" in result["fresh_state"]["tree"]
            assert client.retries == 1, "the act was sent once more after the cut"
            assert [text for text in console_texts(watcher) if text.startswith("order clicked")] == ["order clicked 1"]
            acts = [event for event in watcher.poll_events(after_seq=0, kinds=["act"])["events"]]
            assert len(acts) == 1, "the act ran once; its re-send was answered from the request_id record"


def test_a_call_that_must_not_run_twice_is_not_sent_again(server: Server, pages: Pages, proxy: TcpProxy) -> None:
    with pagewire.Client(f"http://127.0.0.1:{proxy.port}", token=server.token, reconnect=Backoff(initial_delay=0.02)) as client:
        with client.create_session(name="py-sync-lost") as session:
            session.tabs.new(url=pages.url("/sdk/checkout.html?delay=1500"))
            page = session.observe()
            driver = pagewire.Client(server.url).session(session.id)
            blocker = threading.Thread(
                target=lambda: driver.act({"action": "click", "ref": ref_of(page, "Place order")}, state_id=page, wait_for={"text": "Order confirmed (1)"})
            )
            blocker.start()
            while "order clicked 1" not in console_texts(driver):
                time.sleep(0.02)
            threading.Timer(0.3, proxy.cut).start()  # tabs.new waits behind the act on the server
            with pytest.raises(TransportError) as lost:
                session.tabs.new(url="about:blank")
            blocker.join()
            assert lost.value.error_type == "connection_lost"
            # The first tab, the checkout, and the one tabs.new opened once the act was done: not a fourth.
            assert len(session.tabs.list()["tabs"]) == 3, "tabs.new ran once, and was not sent again"


def test_client_budgets_and_the_act_past_its_budget(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url, grace=3) as client, client.create_session(name="py-sync-budget") as session:
        session.tabs.new(url=pages.url("/sdk/checkout.html?delay=100"))
        page = session.observe()
        started = time.monotonic()
        result = session.act({"action": "click", "ref": ref_of(page, "Place order")}, wait_for={"text": "Never"}, timeout_ms=20_000, timeout=1.0)
        assert time.monotonic() - started < 15, "within the budget and the grace, not timeout_ms"
        assert (result["status"], result["error_type"]) == ("outcome_unknown", "operation_cancelled")
        assert "Orders placed: 1" in session.observe()["tree"]


def test_ctrl_c_during_an_act_sends_cancel_before_it_propagates(server: Server, pages: Pages) -> None:
    import signal

    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-ctrl-c") as session:
        session.tabs.new(url=pages.url("/sdk/checkout.html?delay=100"))
        page = session.observe()
        watcher = pagewire.Client(server.url).session(session.id)

        def interrupt_once_clicked() -> None:
            while "order clicked 1" not in console_texts(watcher):
                time.sleep(0.02)
            # To the main thread itself, so that its blocked read is interrupted as Ctrl-C interrupts it.
            signal.pthread_kill(main, signal.SIGINT)

        main = threading.main_thread().ident or 0
        threading.Thread(target=interrupt_once_clicked).start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            session.act({"action": "click", "ref": ref_of(page, "Place order")}, wait_for={"text": "Never"}, timeout_ms=20_000)
        # The cancel reached the server: the session is free long before the act's 20 s.
        assert "Orders placed: 1" in session.observe()["tree"]
        assert time.monotonic() - started < 15
        acts = watcher.poll_events(after_seq=0, kinds=["act"])["events"]
        assert [(event["data"]["status"], event["data"]["error_type"]) for event in acts] == [("outcome_unknown", "operation_cancelled")]


def test_wait_over_post_rpc(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-wait") as session:
        session.tabs.new(url=pages.url("/autosave.html?restore_ms=1000"))
        met = session.wait(text="Draft restored", timeout_ms=10_000)
        assert met["status"] == "met", met
        assert "Draft restored" in met["observation"]["tree"]
        assert session.wait(selector="#published", timeout_ms=300)["status"] == "condition_not_met"


def test_observe_passes_format_markdown_through(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-markdown") as session:
        session.tabs.new(url=pages.url("/release-notes.html"))
        page = session.observe(format="markdown")
        assert page["tree"] == ""
        assert "\n## Plans compared\n" in page["markdown"]
        link = ref_of(page, "migration guide")
        assert f"[migration guide]({link})" in page["markdown"]
        result = session.act({"action": "click", "ref": link})
        assert result["status"] in ("completed", "verified"), result


def test_observe_find_passes_through_and_its_refs_act(server: Server, pages: Pages) -> None:
    with pagewire.Client(server.url) as client, client.create_session(name="py-sync-find") as session:
        session.tabs.new(url=pages.url("/sdk/sign-in.html"))
        found = session.observe(find="sign IN", find_role="button")
        assert [element["name"] for element in found["elements"]] == ["Sign in"], found["tree"]
        assert [match["ref"] for match in found["matches"]] == [found["elements"][0]["ref"]]
        assert session.last_observation == found
        clicked = session.act({"action": "click", "ref": found["elements"][0]["ref"]})
        assert clicked["status"] in ("completed", "verified"), clicked
        with pytest.raises(RpcError) as empty:
            session.observe(find=" ")
        assert empty.value.error_type == "invalid_params"


def test_the_client_names_the_instance_that_answered_it(private_server: Any) -> None:
    # Behind a balancer every request names the instance that holds this client's sessions (PROTOCOL.md §13, "Fleet").
    served = private_server("--instance-id", "py-sync-a")
    with pagewire.Client(served.url) as client:
        assert client.instance is None
        with client.create_session(name="py-fleet") as session:
            assert client.instance == "py-sync-a"
            assert session.id is not None and session.id.startswith("s_py-sync-a_")


def test_create_session_passes_endpoint_through_and_the_server_judges_it(server: Server, private_server: Any) -> None:
    with pagewire.Client(server.url) as client:
        with pytest.raises(RpcError) as refused:
            client.create_session(endpoint="http://127.0.0.1:9")
        assert refused.value.error_type == "forbidden"
        assert "--allow-endpoint" in str(refused.value)
    allowing = private_server("--allow-endpoint", "http://127.0.0.1:*")
    with pagewire.Client(allowing.url) as client:
        # Allowed, but nothing listens there: the server says so, and keeps no endpoint for it.
        with pytest.raises(RpcError) as unreachable:
            client.create_session(endpoint="http://127.0.0.1:9")
        assert unreachable.value.error_type == "browser_unavailable"
        assert unreachable.value.data["reason"] == "connect_failed"
        assert "endpoints" not in client.server_info()
