"""The SDK's parts without a browser: reconnect delays, where a URL's token goes, the event cursor,
and an act's client-side budget against a peer that never answers it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

import pagewire
from pagewire import Backoff
from pagewire._common import Endpoint
from pagewire._events import EventCursor


def test_backoff_caps_double_up_to_the_largest_with_full_jitter_and_reset_starts_over() -> None:
    draws = iter([0.999, 0.5, 0, 0.999, 0.999, 0.999, 0.999])
    backoff = Backoff(initial_delay=0.1, max_delay=1.0, random=lambda: next(draws))
    assert [round(backoff.next(), 4) for _ in range(6)] == [0.0999, 0.1, 0.0, 0.7992, 0.999, 0.999]
    backoff.reset()
    assert round(backoff.next(), 4) == 0.0999
    defaults = Backoff(random=lambda: 0.999999)
    delays = [defaults.next() for _ in range(10)]
    assert round(delays[0], 3) == 0.1 and round(max(delays), 3) == 5.0 and defaults.give_up_after == 60


def test_the_token_leaves_the_url_for_a_header() -> None:
    endpoint = Endpoint.parse("ws://127.0.0.1:9333/?token=abc")
    assert (endpoint.socket_url, endpoint.rpc_url, endpoint.headers()) == (
        "ws://127.0.0.1:9333/",
        "http://127.0.0.1:9333/rpc",
        {"Authorization": "Bearer abc"},
    )
    assert "abc" not in repr(endpoint)
    assert Endpoint.parse("https://example.test", token="t").socket_url == "wss://example.test/"
    assert Endpoint.parse("http://[::1]:9333/rpc?token=x").rpc_url == "http://[::1]:9333/rpc"
    with pytest.raises(ValueError) as bad:
        Endpoint.parse("ftp://host/?token=do-not-show")
    assert "do-not-show" not in str(bad.value)


def test_the_event_cursor_takes_each_seq_once_and_starts_a_live_stream_at_now() -> None:
    cursor = EventCursor(None)
    cursor.start_at(7)
    assert [cursor.take({"seq": seq}) for seq in (6, 7, 8, 8, 10, 9)] == [False, False, True, False, True, False]
    cursor.start_at(100)  # only a stream that had not started learns "now"
    assert cursor.last_seq == 10


def test_an_act_that_is_never_answered_ends_at_its_budget_from_timeout_ms_after_sending_cancel() -> None:
    async def test() -> None:
        received: list[str] = []

        async def never_answers_act(socket: Any, *_: Any) -> None:
            async for message in socket:
                request = json.loads(message)
                received.append(request["method"])
                if request["method"] == "cancel":
                    await socket.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"status": "idle"}}))

        peer = await websockets.serve(never_answers_act, "127.0.0.1", 0)
        try:
            async with pagewire.connect(f"ws://127.0.0.1:{peer.sockets[0].getsockname()[1]}/", grace=0.3) as client:
                started = time.monotonic()
                result = await client.session("s_1").act({"action": "click", "ref": "@1"}, state_id="st_1", timeout_ms=200, wait_for={"text": "x"})
                elapsed = time.monotonic() - started
        finally:
            peer.close()
            await peer.wait_closed()
        # The budget is timeout_ms plus the grace; then the grace again for the cancelled act's answer.
        assert 0.75 <= elapsed < 3, elapsed
        assert (result["status"], result["execution"], result["error_type"], result["postcondition"]) == (
            "outcome_unknown",
            "dispatched_unknown",
            "timeout",
            "unknown",
        )
        assert received == ["act", "cancel"]

    asyncio.run(test())


def test_the_sync_client_needs_nothing_outside_the_standard_library(server: Any) -> None:
    import subprocess
    import sys

    # websockets made unimportable: the sync client still works, and only an async connect names it.
    code = (
        "import asyncio, sys\n"
        "sys.modules['websockets'] = None\n"
        "import pagewire\n"
        "print(pagewire.Client(sys.argv[1]).server_info()['name'])\n"
        "try:\n"
        "    asyncio.run(pagewire.connect(sys.argv[1])._opening)\n"
        "except ImportError as error:\n"
        "    print('async:', type(error).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, server.url], capture_output=True, text=True, timeout=60, cwd=str(Path(pagewire.__file__).parents[1]))
    assert done.stdout.split("\n")[:2] == ["pagewire", "async: ModuleNotFoundError"], done.stderr
