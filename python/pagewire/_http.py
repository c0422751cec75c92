"""JSON-RPC over POST /rpc with the standard library (http.client), for the sync client. A call
that may be sent twice (reads, and an act, which carries its request_id) is sent again with
backoff when the server cannot be reached or the connection drops; any other call that was sent
fails with ``connection_lost``, since the server may or may not have run it.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from typing import Any, Mapping
from urllib.parse import urlsplit

from ._backoff import Backoff
from ._common import Endpoint, answer_of, redact_url, request_frame
from .errors import TransportError

#: An idle connection is used again only this soon (s): the server (Node) closes idle ones after 5 s,
#: and a request written on a connection it is closing would look lost.
REUSE_WITHIN = 2.0

#: What an HTTP refusal means for the caller (the body says it in plain text too).
_REFUSALS = {
    401: "missing or wrong token",
    403: "Host or Origin not allowed",
    405: "POST /rpc only",
    413: "request too large",
    415: "not sent as application/json",
}


class _Unsent(Exception):
    """The request never reached the server: any call may be sent again."""


class HttpTransport:
    def __init__(self, endpoint: Endpoint, backoff: Backoff | None) -> None:
        self.endpoint = endpoint
        parts = urlsplit(endpoint.rpc_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path + (f"?{parts.query}" if parts.query else "")
        self._backoff = backoff
        self._idle: list[tuple[http.client.HTTPConnection, float]] = []
        self._lock = threading.Lock()
        self._next_id = 1
        self._closed = False
        #: How many times a call was sent again after the server could not be reached.
        self.retries = 0
        #: Behind a balancer, the instance that answered last (its ``Pagewire-Instance``): every
        #: request names it, so it reaches the instance that holds this client's sessions
        #: (PROTOCOL.md §13, "Fleet"). An instance that is gone is answered for by another, which
        #: becomes this client's instance from its answer on.
        self.instance: str | None = None

    def call(self, method: str, params: Mapping[str, Any], *, resend: bool, timeout: float) -> Any:
        if self._closed:
            raise TransportError("connection_closed", "the client is closed")
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
        body = request_frame(request_id, method, params).encode()
        deadline = time.monotonic() + timeout
        backoff = Backoff(**{k: getattr(self._backoff, k) for k in ("initial_delay", "max_delay", "give_up_after")}) if self._backoff else None
        down_since: float | None = None
        while True:
            try:
                return self._exchange(method, body, deadline)
            except _Unsent as unsent:
                failure = TransportError("connection_failed", f"cannot reach {redact_url(self.endpoint.rpc_url)}: {unsent}")
            except TransportError as error:
                if error.error_type != "connection_lost" or not resend:
                    raise
                failure = error
            if backoff is None:
                raise failure
            now = time.monotonic()
            down_since = now if down_since is None else down_since
            delay = backoff.next()
            if now - down_since > backoff.give_up_after or now + delay >= deadline:
                raise TransportError(
                    "connection_closed" if failure.error_type == "connection_lost" else failure.error_type,  # type: ignore[arg-type]
                    f"{method}: {failure} (gave up after {now - down_since:.1f} s)",
                    data=failure.data,
                ) from None
            time.sleep(delay)
            self.retries += 1

    def close(self) -> None:
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.close()

    def _exchange(self, method: str, body: bytes, deadline: float) -> Any:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TransportError("client_timeout", f"{method}: no answer within its budget", data={"method": method})
        connection = self._take(remaining)
        sent = False
        try:
            if connection.sock is None:
                try:
                    connection.connect()
                except OSError as error:
                    raise _Unsent(error.strerror or type(error).__name__) from None
            connection.sock.settimeout(remaining)  # type: ignore[union-attr]
            sent = True
            headers = {"Content-Type": "application/json", **self.endpoint.headers()}
            if self.instance is not None:
                headers["Pagewire-Instance"] = self.instance
            connection.request("POST", self._path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            self.instance = response.getheader("Pagewire-Instance") or self.instance
        except (socket.timeout, TimeoutError):
            connection.close()
            raise TransportError("client_timeout", f"{method}: no answer within its budget", data={"method": method}) from None
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            if not sent:
                raise _Unsent(type(error).__name__) from None
            raise TransportError(
                "connection_lost",
                f"{method}: the connection dropped after the call was sent; it may or may not have run",
                data={"method": method, "reason": type(error).__name__},
            ) from None
        if response.will_close:
            connection.close()
        else:
            self._give_back(connection)
        return self._read(method, response.status, response.getheader("Content-Type") or "", data)

    def _read(self, method: str, status: int, content_type: str, data: bytes) -> Any:
        if status == 503:
            raise _Unsent("the server is shutting down")
        if status in _REFUSALS:
            raise TransportError(
                "connection_failed",
                f"{method}: {redact_url(self.endpoint.rpc_url)} answered HTTP {status}: {_REFUSALS[status]}",
                data={"status": status},
            )
        if status == 204:
            return None
        if status != 200 or not content_type.startswith("application/json"):
            raise TransportError("bad_response", f"{method}: HTTP {status} {content_type or 'without a type'}: not a JSON-RPC answer", data={"status": status})
        try:
            message = json.loads(data)
        except ValueError:
            raise TransportError("bad_response", f"{method}: the answer is not JSON") from None
        return answer_of(method, message)

    def _take(self, timeout: float) -> http.client.HTTPConnection:
        now = time.monotonic()
        with self._lock:
            while self._idle:
                connection, since = self._idle.pop()
                if now - since < REUSE_WITHIN:
                    return connection
                connection.close()
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _give_back(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if self._closed:
                connection.close()
            else:
                self._idle.append((connection, time.monotonic()))
