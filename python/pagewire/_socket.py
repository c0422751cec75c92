"""JSON-RPC 2.0 over a WebSocket that comes back, on asyncio: the Python side of
src/client/connection.ts. Every call stays in the pending table until it is answered; when the
socket drops, the calls that may be written again (reads, and acts, which carry a request_id) are
written again on the next socket, and the others fail with ``connection_lost``, because the server
may or may not have run them.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Callable

from ._backoff import Backoff
from ._common import Endpoint, answer_of, redact_url, request_frame
from .errors import PagewireError, TransportError

try:  # websockets 13 and later
    from websockets.asyncio.client import connect as _ws_connect  # type: ignore[import]

    _HEADERS_ARG = "additional_headers"
except ImportError:  # Debian 12's websockets 10.4
    from websockets.client import connect as _ws_connect

    _HEADERS_ARG = "extra_headers"
from websockets.exceptions import ConnectionClosed, InvalidHandshake

#: websockets logs the handshake's headers (the token among them) at debug level: not this client's.
_quiet = logging.getLogger("pagewire.websocket")
_quiet.setLevel(logging.INFO)

OPEN_TIMEOUT = 10.0

NotificationListener = Callable[[str, dict[str, Any]], None]


class Pending:
    """One call in flight."""

    __slots__ = ("id", "method", "frame", "resend", "written", "future")

    def __init__(self, request_id: int, method: str, frame: str, resend: bool, future: asyncio.Future[Any]) -> None:
        self.id = request_id
        self.method = method
        self.frame = frame
        self.resend = resend
        #: Written to a socket, so the server may have it.
        self.written = False
        self.future = future


def answering_instance(socket: Any) -> str | None:
    """The ``Pagewire-Instance`` the server answered the handshake with (websockets 13+ and 10.4)."""
    response = getattr(socket, "response", None)
    headers = getattr(response, "headers", None) or getattr(socket, "response_headers", None)
    return headers.get("Pagewire-Instance") if headers is not None else None


async def open_socket(endpoint: Endpoint, instance: str | None = None) -> Any:
    """One WebSocket to the server; any failure is ``connection_failed``, naming no token.
    ``instance``: behind a balancer, the instance it must reach (PROTOCOL.md §13, "Fleet")."""
    shown = redact_url(endpoint.socket_url)
    headers = {**endpoint.headers(), **({"Pagewire-Instance": instance} if instance is not None else {})}
    try:
        return await _ws_connect(
            endpoint.socket_url,
            max_size=None,  # observations and screenshots are large; the server bounds what it sends
            compression=None,
            open_timeout=OPEN_TIMEOUT,
            logger=_quiet,
            **{_HEADERS_ARG: headers},
        )
    except InvalidHandshake as error:
        status = getattr(error, "status_code", None) or getattr(getattr(error, "response", None), "status_code", None)
        why = {401: "missing or wrong token", 403: "Host or Origin not allowed"}.get(status or 0, "the handshake failed")
        message = f"cannot connect to {shown}: HTTP {status}: {why}" if status else f"cannot connect to {shown}: {why}"
        raise TransportError("connection_failed", message, data={"status": status} if status else {}) from None
    except (OSError, asyncio.TimeoutError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else type(error).__name__
        raise TransportError("connection_failed", f"cannot connect to {shown}: {reason}", data={"reason": reason}) from None


class SocketConnection:
    def __init__(self, endpoint: Endpoint, socket: Any, backoff: Backoff | None) -> None:
        self.endpoint = endpoint
        self._socket = socket
        self._backoff = backoff
        self._pending: dict[int, Pending] = {}
        self._next_id = 1
        self._state = "open"
        self._closed_error: TransportError | None = None
        self._notification_listeners: list[NotificationListener] = []
        self._reconnect_listeners: list[Callable[[], None]] = []
        self._close_listeners: list[Callable[[TransportError], None]] = []
        self._reconnecting: asyncio.Task[None] | None = None
        #: How many times a dropped socket was replaced.
        self.reconnects = 0
        #: Behind a balancer, the instance the first socket reached: every reconnect names it, so
        #: it reaches the instance that holds this client's sessions.
        self.instance: str | None = answering_instance(socket)
        self._reader = asyncio.ensure_future(self._read(socket))

    @classmethod
    async def open(cls, endpoint: Endpoint, backoff: Backoff | None) -> SocketConnection:
        # The first socket is not retried: there is nothing to resume yet.
        return cls(endpoint, await open_socket(endpoint), backoff)

    @property
    def state(self) -> str:
        return self._state

    @property
    def closed_error(self) -> TransportError | None:
        return self._closed_error

    def register(self, method: str, params: dict[str, Any], *, resend: bool) -> Pending:
        """Enters a call in the pending table; ``send`` writes it (now, or on the next socket)."""
        if self._state == "closed":
            raise self._closed_error or TransportError("connection_closed", "the client is closed")
        request_id = self._next_id
        self._next_id += 1
        entry = Pending(request_id, method, request_frame(request_id, method, params), resend, asyncio.get_running_loop().create_future())
        self._pending[request_id] = entry
        return entry

    async def send(self, entry: Pending) -> None:
        await self._write(entry)

    async def call(self, method: str, params: dict[str, Any], *, resend: bool, timeout: float) -> Any:
        """A call's result; raises on an error answer, a lost connection or the client-side budget."""
        entry = self.register(method, params, resend=resend)
        try:
            await self.send(entry)
        except asyncio.CancelledError:
            self.forget(entry)
            raise
        return await self.wait(entry, timeout)

    async def wait(self, entry: Pending, timeout: float) -> Any:
        try:
            return await asyncio.wait_for(asyncio.shield(entry.future), timeout)
        except asyncio.TimeoutError:
            self.forget(entry)
            raise TransportError(
                "client_timeout", f"{entry.method}: no answer within {timeout:g} s", data={"method": entry.method, "timeout_s": timeout}
            ) from None
        except asyncio.CancelledError:
            self.forget(entry)
            raise

    def forget(self, entry: Pending) -> None:
        """Stop waiting for a call: it is never written again."""
        self._pending.pop(entry.id, None)
        if not entry.future.done():
            entry.future.cancel()

    def on_notification(self, listener: NotificationListener) -> Callable[[], None]:
        self._notification_listeners.append(listener)
        return lambda: _remove(self._notification_listeners, listener)

    def on_reconnect(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Runs after a dropped socket was replaced, before the calls waiting for it are written."""
        self._reconnect_listeners.append(listener)
        return lambda: _remove(self._reconnect_listeners, listener)

    def on_close(self, listener: Callable[[TransportError], None]) -> Callable[[], None]:
        self._close_listeners.append(listener)
        return lambda: _remove(self._close_listeners, listener)

    async def close(self) -> None:
        """Closes for good; every call in flight fails with connection_closed. Returns once nothing of it runs."""
        await self._fail(TransportError("connection_closed", "the client was closed"))
        running = [task for task in (self._reconnecting, self._reader) if task is not None and task is not asyncio.current_task()]
        await asyncio.gather(*running, return_exceptions=True)

    async def _write(self, entry: Pending) -> None:
        if self._state != "open":
            return
        socket = self._socket
        try:
            await socket.send(entry.frame)
        except ConnectionClosed:
            return  # the socket is going; its reader decides what happens to this call
        if socket is self._socket and entry.id in self._pending:
            entry.written = True

    async def _read(self, socket: Any) -> None:
        try:
            async for message in socket:
                if isinstance(message, str):
                    self._on_message(message)
        except ConnectionClosed:
            pass
        finally:
            if socket is self._socket and self._state == "open":
                self._on_lost()

    def _on_message(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            # Not a pagewire server (a pagewire server sends JSON only): nothing on this socket can be trusted.
            error = TransportError("bad_response", f"{redact_url(self.endpoint.socket_url)} sent a message that is not JSON: not a pagewire server?")
            asyncio.ensure_future(self._fail(error))
            return
        for one in message if isinstance(message, list) else [message]:
            if not isinstance(one, dict):
                continue
            if isinstance(one.get("method"), str) and "id" not in one:
                raw = one.get("params")
                params: dict[str, Any] = raw if isinstance(raw, dict) else {}
                for listener in list(self._notification_listeners):
                    listener(one["method"], params)
                continue
            entry = self._pending.pop(one["id"], None) if isinstance(one.get("id"), int) else None
            if entry is None or entry.future.done():
                continue
            try:
                entry.future.set_result(answer_of(entry.method, one))
            except PagewireError as error:
                entry.future.set_exception(error)

    def _on_lost(self) -> None:
        for entry in list(self._pending.values()):
            if not entry.written:
                continue
            if entry.resend and self._backoff is not None:
                entry.written = False
                continue
            self._pending.pop(entry.id, None)
            if not entry.future.done():
                entry.future.set_exception(
                    TransportError(
                        "connection_lost",
                        f"{entry.method}: the connection dropped after the call was sent; it may or may not have run",
                        data={"method": entry.method},
                    )
                )
        if self._backoff is None:
            asyncio.ensure_future(self._fail(TransportError("connection_closed", "the connection dropped (reconnect is off)")))
            return
        self._state = "reconnecting"
        self._reconnecting = asyncio.ensure_future(self._reconnect(self._backoff))

    async def _reconnect(self, backoff: Backoff) -> None:
        loop = asyncio.get_running_loop()
        down_since = loop.time()
        backoff.reset()
        while self._state == "reconnecting":
            if loop.time() - down_since > backoff.give_up_after:
                await self._fail(TransportError("connection_closed", f"could not reconnect to the server within {backoff.give_up_after:g} s"))
                return
            await asyncio.sleep(backoff.next())
            try:
                socket = await open_socket(self.endpoint, self.instance)
            except TransportError:
                continue
            if self._state != "reconnecting":
                await socket.close()
                return
            self._socket = socket
            self._state = "open"
            self.reconnects += 1
            # The instance named may be gone: the one that answered instead holds what comes next.
            self.instance = answering_instance(socket) or self.instance
            self._reader = asyncio.ensure_future(self._read(socket))
            for listener in list(self._reconnect_listeners):
                listener()
            for entry in sorted(self._pending.values(), key=lambda one: one.id):
                if not entry.written:
                    await self._write(entry)

    async def _fail(self, error: TransportError) -> None:
        if self._state == "closed":
            return
        self._state = "closed"
        self._closed_error = error
        for entry in list(self._pending.values()):
            if not entry.future.done():
                entry.future.set_exception(error)
        self._pending.clear()
        for listener in list(self._close_listeners):
            listener(error)
        reconnecting = self._reconnecting
        if reconnecting is not None and reconnecting is not asyncio.current_task():
            reconnecting.cancel()
        try:
            await self._socket.close()
        except Exception:  # already gone
            pass
        if self._reader is not asyncio.current_task():
            await asyncio.gather(self._reader, return_exceptions=True)


def _remove(listeners: list[Any], listener: Any) -> None:
    if listener in listeners:
        listeners.remove(listener)
