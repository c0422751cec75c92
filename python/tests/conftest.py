"""The real things the Python SDK is tested against: a pagewire server started as a process
(``node dist/src/main.js --port 0``, its ready line read for the URL and token, stopped with
SIGTERM at the end with its browser), the fixture pages of fixtures/pages served on 127.0.0.1, and
a loopback TCP proxy that breaks connections on purpose.
"""

from __future__ import annotations

import asyncio
import functools
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "fixtures" / "pages"
READY_PREFIX = "pagewire listening on "


@dataclass
class Server:
    #: The ready line's URL, token included.
    url: str
    token: str
    port: int
    process: subprocess.Popen[str]

    @property
    def rpc_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/rpc"


def _children(pid: int) -> set[int]:
    """Every live process below ``pid`` (the browser and its helpers)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # The ppid is the second field after the command in parentheses (which may hold spaces).
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent and int(entry.name) not in found:
                found.add(int(entry.name))
                todo.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start_server(*flags: str, env: dict[str, str] | None = None) -> Server:
    node = shutil.which("node")
    assert node, "node is needed to start the server"
    main = ROOT / "dist" / "src" / "main.js"
    assert main.exists(), "dist/ is not built: run npm ci (or npm run build)"
    token = "py-" + secrets.token_hex(12)
    process = subprocess.Popen(
        [node, str(main), "--port", "0", "--token", token, *flags],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith(READY_PREFIX):
        process.kill()
        process.wait()
        raise RuntimeError(f"the server did not start: {line!r}")
    url = line[len(READY_PREFIX):]
    return Server(url=url, token=token, port=int(url.split(":")[2].split("/")[0]), process=process)


def stop_server(server: Server) -> None:
    """SIGTERM, as a person would stop it: it exits 0 and its browser goes with it."""
    below = _children(server.process.pid)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in below if _alive(pid)], "the server left processes behind"


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    running = start_server()
    yield running
    stop_server(running)


@pytest.fixture()
def private_server() -> Iterator[Callable[..., Server]]:
    """Servers of a test's own (other flags, or one to stop), stopped at its end."""
    started: list[Server] = []

    def start(*flags: str, env: dict[str, str] | None = None) -> Server:
        started.append(start_server(*flags, env=env))
        return started[-1]

    yield start
    for one in started:
        if one.process.poll() is None:
            stop_server(one)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@dataclass
class Pages:
    origin: str

    def url(self, path: str) -> str:
        return f"{self.origin}/{path.lstrip('/')}"


@pytest.fixture(scope="session")
def pages() -> Iterator[Pages]:
    """fixtures/pages on 127.0.0.1 (loopback only, a port the OS chooses)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(PAGES)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield Pages(f"http://127.0.0.1:{httpd.server_address[1]}")
    httpd.shutdown()
    httpd.server_close()
    thread.join()


class TcpProxy:
    """A loopback TCP proxy in front of a server, on a loop of its own (usable from sync and async
    tests alike): cut every connection at once, refuse new ones for a while, or swallow what the
    server sends back (an answer lost on the way)."""

    def __init__(self, port: int) -> None:
        self._target = port
        self._loop = asyncio.new_event_loop()
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._refusing = False
        self._swallow: threading.Event | None = None
        self.accepted = 0
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self._thread.start()
        started.wait()

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._accept, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        started.set()
        self._loop.run_forever()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self._refusing:
            client_writer.transport.abort()
            return
        self.accepted += 1
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self._target)
        except OSError:
            client_writer.transport.abort()
            return
        pair = (client_writer, server_writer)
        self._pairs.add(pair)

        async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, replies: bool) -> None:
            try:
                while chunk := await reader.read(65536):
                    if replies and self._swallow is not None:
                        self._swallow.set()
                        continue
                    writer.write(chunk)
            except (ConnectionError, OSError):
                pass
            finally:
                for one in pair:
                    one.transport.abort()
                self._pairs.discard(pair)

        await asyncio.gather(pump(client_reader, server_writer, False), pump(server_reader, client_writer, True))

    def _soon(self, fn: Callable[[], None]) -> None:
        done = threading.Event()

        def run() -> None:
            fn()
            done.set()

        self._loop.call_soon_threadsafe(run)
        done.wait()

    def cut(self) -> None:
        """Aborts every open connection, both sides, as a dropped network does."""

        def cut() -> None:
            self._swallow = None
            for pair in list(self._pairs):
                for one in pair:
                    one.transport.abort()
            self._pairs.clear()

        self._soon(cut)

    def refuse(self, on: bool) -> None:
        """While on, new connections are dropped as they arrive."""
        self._refusing = on

    def swallow_replies(self) -> threading.Event:
        """From now on the server's bytes are dropped; the event is set when the first dropped chunk came."""
        self._swallow = threading.Event()
        return self._swallow

    def close(self) -> None:
        self.cut()
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    async def _shutdown(self) -> None:
        self._server.close()
        await self._server.wait_closed()
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)


@pytest.fixture()
def proxy(server: Server) -> Iterator[TcpProxy]:
    front = TcpProxy(server.port)
    yield front
    front.close()


def open_fds() -> set[tuple[int, str]]:
    """This process's open descriptors, each with what it points to (a socket's inode): one in a later
    set and not in an earlier one was opened since and is still open. Comparing counts would also
    count a descriptor of an earlier test that the collector closed meanwhile."""
    fds = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            fds.add((int(name), os.readlink(f"/proc/self/fd/{name}")))
        except OSError:
            pass  # the listing's own descriptor, closed by now
    return fds
