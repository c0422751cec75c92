"""What a pagewire call raises. Every error carries ``error_type``, a word to branch on: the
server's own (``session_not_found``, ``invalid_params``…, §3 of docs/PROTOCOL.md) for JSON-RPC
errors, and the client's words below for the transport. An act outcome is never raised: it is a
result (``status``, ``error_type``), as on the wire.
"""

from __future__ import annotations

import builtins
from typing import Any, Literal

#: Client-side error words (never sent by the server), as in the TypeScript SDK.
TransportErrorType = Literal[
    # The server could not be reached or refused the client (no server, 401, 403).
    "connection_failed",
    # The connection dropped while a call that must not be sent twice was on the wire: it may or may not have run.
    "connection_lost",
    # The client was closed, or gave up reconnecting.
    "connection_closed",
    # No answer within the call's client-side budget.
    "client_timeout",
    # The answer was not JSON-RPC the client understands.
    "bad_response",
]


class PagewireError(Exception):
    """The base of everything pagewire raises."""

    error_type: str
    #: The JSON-RPC error code for a server error; None for the client's own.
    code: int | None
    data: dict[str, Any]

    def __init__(self, error_type: str, message: str, *, code: int | None = None, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.code = code
        self.data = dict(data or {})

    @property
    def message(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.error_type!r}, {str(self)!r})"


class RpcError(PagewireError):
    """A JSON-RPC error the server answered; ``error_type`` is its ``data.error_type``."""

    method: str

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        raw = error.get("data")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        word = data.get("error_type")
        error_type = word if isinstance(word, str) else "internal_error"
        number = error.get("code")
        code = number if isinstance(number, int) else None
        super().__init__(error_type, f"{method}: {error.get('message', 'error')}", code=code, data=data)
        self.method = method


class TransportError(PagewireError, builtins.ConnectionError):
    """Something between the client and the server failed (see TransportErrorType).

    It is also a built-in ``ConnectionError``, so code that already catches those catches it.
    """

    def __init__(self, error_type: TransportErrorType, message: str, *, data: dict[str, Any] | None = None) -> None:
        super().__init__(error_type, message, data=data)


def is_pagewire_error(error: BaseException, error_type: str | None = None) -> bool:
    """Whether ``error`` is pagewire's (and of that ``error_type``, when given)."""
    return isinstance(error, PagewireError) and (error_type is None or error.error_type == error_type)
