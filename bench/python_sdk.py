"""The Python side of `npm run bench:python` (bench/python-sdk.ts runs it, once per round): the
same calls on the same session through the Python SDK's two clients, and through the bare
transports they sit on (the websockets library with a hand-written JSON-RPC frame, and a bare
http.client POST), so that what the SDK itself adds can be told from what Python and its
transport cost. Prints one JSON object: per kind and call, the wall time of every call (ms) and
this process's CPU time per call (ms).

    /usr/bin/python3 bench/python_sdk.py URL SESSION_ID CALLS
"""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import pagewire  # noqa: E402
import websockets  # noqa: E402
from pagewire._common import Endpoint  # noqa: E402

URL, SESSION, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])
WARMUPS = 5
METHODS = {"observe": {"session_id": SESSION}, "server.info": {}}


def measure_sync(call: Callable[[], Any]) -> dict[str, Any]:
    for _ in range(WARMUPS):
        call()
    walls = []
    cpu = time.process_time()
    for _ in range(CALLS):
        started = time.perf_counter()
        call()
        walls.append((time.perf_counter() - started) * 1000)
    return {"wall_ms": walls, "cpu_ms_per_call": (time.process_time() - cpu) * 1000 / CALLS}


async def measure_async(call: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    for _ in range(WARMUPS):
        await call()
    walls = []
    cpu = time.process_time()
    for _ in range(CALLS):
        started = time.perf_counter()
        await call()
        walls.append((time.perf_counter() - started) * 1000)
    return {"wall_ms": walls, "cpu_ms_per_call": (time.process_time() - cpu) * 1000 / CALLS}


async def over_the_socket(out: dict[str, Any]) -> None:
    endpoint = Endpoint.parse(URL)
    async with pagewire.connect(URL) as client:
        session = client.session(SESSION)
        out["async SDK observe"] = await measure_async(session.observe)
        out["async SDK server.info"] = await measure_async(client.server_info)
    bare = await websockets.connect(endpoint.socket_url + f"?token={endpoint.token}", max_size=None, compression=None)
    ids = iter(range(1, 1_000_000))
    for method, params in METHODS.items():

        async def call(method: str = method, params: dict[str, Any] = params) -> Any:
            await bare.send(json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}))
            return json.loads(await bare.recv())

        out[f"bare websockets {method}"] = await measure_async(call)
    await bare.close()


def over_http(out: dict[str, Any]) -> None:
    with pagewire.Client(URL) as client:
        session = client.session(SESSION)
        out["sync SDK observe"] = measure_sync(session.observe)
        out["sync SDK server.info"] = measure_sync(client.server_info)
    endpoint = Endpoint.parse(URL)
    host, port = endpoint.rpc_url.split("/")[2].split(":")
    connection = http.client.HTTPConnection(host, int(port))
    for method, params in METHODS.items():
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})

        def call(body: str = body) -> Any:
            connection.request("POST", "/rpc", body, {"Content-Type": "application/json", **endpoint.headers()})
            return json.loads(connection.getresponse().read())

        out[f"bare http.client {method}"] = measure_sync(call)
    connection.close()


results: dict[str, Any] = {}
asyncio.run(over_the_socket(results))
over_http(results)
print(json.dumps(results))
