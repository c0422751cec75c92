"""Bad input gives a clear exception and leaks nothing: a wrong token, nothing listening, a peer
that answers what is not JSON-RPC, a server that goes away; every message free of the token, no
task or socket left behind. And the generated types are those of the running server's wire."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest
import websockets

import pagewire
from pagewire import Backoff, RpcError, TransportError
from pagewire import types as wire

from .conftest import Server, open_fds


def closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_wrong_token_or_nothing_listening_fails_connect_with_connection_failed_and_leaks_nothing(server: Server) -> None:
    async def test() -> None:
        fds = open_fds()
        with pytest.raises(TransportError) as wrong:
            await pagewire.connect(server.url, token="not-the-token")
        assert wrong.value.error_type == "connection_failed" and wrong.value.data["status"] == 401
        assert "not-the-token" not in repr(wrong.value) + str(wrong.value.data) and server.token not in str(wrong.value)
        assert wrong.value.__cause__ is None and wrong.value.__suppress_context__
        with pytest.raises(TransportError) as nobody:
            await pagewire.connect(f"ws://127.0.0.1:{closed_port()}/?token=secret-in-url")
        assert nobody.value.error_type == "connection_failed" and "secret-in-url" not in str(nobody.value)
        assert isinstance(nobody.value, ConnectionError)
        assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []
        assert open_fds() - fds == set()

    asyncio.run(test())
    with pytest.raises(TransportError) as sync_wrong:
        pagewire.Client(server.url, token="not-the-token").server_info()
    assert sync_wrong.value.error_type == "connection_failed" and sync_wrong.value.data["status"] == 401
    assert "not-the-token" not in str(sync_wrong.value)
    with pytest.raises(TransportError) as sync_nobody:
        pagewire.Client(f"http://127.0.0.1:{closed_port()}?token=secret-in-url", reconnect=Backoff(give_up_after=0.3)).server_info()
    assert sync_nobody.value.error_type == "connection_failed" and "secret-in-url" not in str(sync_nobody.value)
    assert "gave up" in str(sync_nobody.value)


def test_a_peer_that_does_not_speak_json_rpc_is_a_bad_response() -> None:
    async def test() -> None:
        async def answer(socket: Any, *_: Any) -> None:
            async for message in socket:
                request = json.loads(message)
                if request["method"] == "server.info":
                    await socket.send(json.dumps({"jsonrpc": "2.0", "id": request["id"]}))  # neither result nor error
                else:
                    await socket.send("<html>not a pagewire server</html>")

        fake = await websockets.serve(answer, "127.0.0.1", 0)
        port = fake.sockets[0].getsockname()[1]
        try:
            client = await pagewire.connect(f"ws://127.0.0.1:{port}/", reconnect=False)
            with pytest.raises(TransportError) as neither:
                await client.server_info()
            assert neither.value.error_type == "bad_response"
            with pytest.raises(TransportError) as garbage:
                await client.list_sessions()
            assert garbage.value.error_type == "bad_response" and "not JSON" in str(garbage.value)
            with pytest.raises(TransportError) as closed:
                await client.server_info()
            assert closed.value.error_type == "bad_response", "the client is closed for good, and says why"
            await client.close()
        finally:
            fake.close()
            await fake.wait_closed()
        assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []

    asyncio.run(test())


@pytest.fixture()
def fake_http() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers["Content-Length"]))
            body, kind = (b"{not json", "application/json") if self.path.startswith("/rpc") else (b"", "text/plain")
            if "html" in self.headers.get("X-Want", ""):
                body, kind = b"<html>a proxy's page</html>", "text/html"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_the_sync_client_names_a_malformed_answer(fake_http: str) -> None:
    with pagewire.Client(fake_http) as client, pytest.raises(TransportError) as garbage:
        client.server_info()
    assert garbage.value.error_type == "bad_response" and "not JSON" in str(garbage.value)


def test_a_server_gone_for_good_fails_calls_with_connection_closed_and_leaves_nothing(private_server: Any) -> None:
    served = private_server()

    async def test() -> None:
        client = await pagewire.connect(served.url, reconnect=Backoff(initial_delay=0.02, give_up_after=0.5))
        session = await client.create_session(name="py-gone")
        from .conftest import stop_server

        await asyncio.get_running_loop().run_in_executor(None, stop_server, served)
        with pytest.raises(TransportError) as gone:
            await session.observe()
        assert gone.value.error_type in ("connection_closed", "connection_lost")
        await client.close()
        assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []

    asyncio.run(test())
    with pytest.raises(TransportError) as sync_gone:
        pagewire.Client(served.url, reconnect=Backoff(initial_delay=0.02, give_up_after=0.3)).server_info()
    assert sync_gone.value.error_type == "connection_failed"


def test_the_generated_types_are_the_running_servers_wire(server: Server) -> None:
    """Every method rpc.discover lists has its params and result TypedDicts, with the same fields."""
    document = pagewire.Client(server.url).discover()
    schemas = document["components"]["schemas"]
    for method in document["methods"]:
        params, result = wire.METHODS[method["name"]]
        names = {param["name"] for param in method["params"]}
        assert set(getattr(params, "__annotations__", {})) == names, method["name"]
        required = {param["name"] for param in method["params"] if param["required"]}
        assert getattr(params, "__required_keys__", frozenset()) == required, method["name"]
        schema = method["result"]["schema"]
        if "$ref" in schema:
            schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
        if "properties" in schema:
            keys = result.__required_keys__ | result.__optional_keys__
            assert keys == set(schema["properties"]), method["name"]
            assert result.__required_keys__ == set(schema.get("required", [])), method["name"]
    assert wire.ERROR_CODES["session_not_found"] == -32004
    with pytest.raises(RpcError) as unknown:
        pagewire.Client(server.url).call("no.such.method")
    assert unknown.value.error_type == "method_not_found"
