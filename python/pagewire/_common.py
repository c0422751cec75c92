"""What the async client (the WebSocket) and the sync client (POST /rpc) share: URLs and the token,
which calls may be sent twice, an act's params and request_id, screenshots as bytes, and reading a
JSON-RPC answer.
"""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .types import LONE_NAVIGATIONS, Action, ActResult, Observation, ScreenshotResult
from .errors import RpcError, TransportError

#: A call other than act gets this long (s) by default: it may wait behind an act of 60 s.
DEFAULT_CALL_TIMEOUT = 70.0
#: Added to an act's timeout_ms for its client-side budget, and how long a stopped act waits for its answer (s).
DEFAULT_GRACE = 10.0
#: An act's timeout_ms when it gives none (PROTOCOL.md §7).
DEFAULT_ACT_TIMEOUT_MS = 30_000

#: Methods that only read, or set something to a given value: safe to send again after a drop.
#: An act is sent again too, with the same request_id (the server runs it at most once).
RESENDABLE = frozenset(
    {
        "observe",
        "tabs.list",
        "tabs.select",
        "frames.list",
        "frames.select",
        "screenshot",
        "downloads.list",
        "network.list",
        "session.storage_state",
        "session.list",
        "server.info",
        "rpc.discover",
        "events.poll",
        "trace.start",
        "trace.stop",
        "act",
    }
)


def new_request_id() -> str:
    """Made once per act call, so that the act's re-sends are recognised as one."""
    return "sdk_" + secrets.token_hex(16)


@dataclass(frozen=True)
class Endpoint:
    """Where a server is, with its token kept apart from every URL that may be shown."""

    #: ``ws://HOST:PORT/`` without the token.
    socket_url: str
    #: ``http://HOST:PORT/rpc``.
    rpc_url: str
    token: str | None = field(default=None, repr=False)

    @staticmethod
    def parse(url: str, token: str | None = None) -> Endpoint:
        """Reads the server's ready line URL (``ws://127.0.0.1:9333/?token=…``) or an ``http(s)://`` one."""
        parts = urlsplit(url)
        scheme = {"ws": "ws", "http": "ws", "wss": "wss", "https": "wss"}.get(parts.scheme)
        if scheme is None or not parts.netloc:
            raise ValueError(f"not a pagewire URL (ws://HOST:PORT/?token=… or http://HOST:PORT): {redact_url(url)}")
        query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "token"]
        in_url = dict(parse_qsl(parts.query)).get("token")
        rest = urlencode(query)
        http = "http" if scheme == "ws" else "https"
        return Endpoint(
            socket_url=urlunsplit((scheme, parts.netloc, "/", rest, "")),
            rpc_url=urlunsplit((http, parts.netloc, "/rpc", rest, "")),
            token=token if token is not None else in_url,
        )

    def headers(self) -> dict[str, str]:
        # A header, never the URL: URLs end up in logs and error messages.
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


def redact_url(url: str) -> str:
    """The URL without its query and fragment (where a token would be), for messages."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def session_field(session_id: str | None) -> dict[str, Any]:
    return {} if session_id is None else {"session_id": session_id}


def drop_none(options: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class ActCall:
    """One act as it is sent (and sent again): its params, made once, and its client-side budget."""

    params: dict[str, Any]
    #: Seconds: timeout_ms (or its default) plus the grace.
    budget: float
    #: What a locally made outcome says of the postcondition.
    postcondition: str


def _lone_action(action_or_actions: Action | Sequence[Action] | Mapping[str, Any]) -> Mapping[str, Any] | None:
    if isinstance(action_or_actions, Mapping):
        return action_or_actions
    listed = list(action_or_actions)
    return listed[0] if len(listed) == 1 else None


def act_call(
    session_id: str | None,
    action_or_actions: Action | Sequence[Action] | Mapping[str, Any],
    *,
    state_id: str | Mapping[str, Any] | None,
    last: Observation | None,
    fields: Mapping[str, Any],
    grace: float,
    timeout: float | None,
) -> ActCall:
    if not isinstance(action_or_actions, Mapping):
        action_or_actions = list(action_or_actions)
    lone = _lone_action(action_or_actions)
    navigation = lone is not None and lone.get("action") in LONE_NAVIGATIONS
    # A lone navigation needs no observation (PROTOCOL.md §7): without an explicit state it goes
    # to the selected tab (or target_id), whatever this handle saw last.
    observed: Any = state_id if state_id is not None else (None if navigation else last)
    if observed is None and not navigation:
        raise TypeError("act needs an observation: call observe() first or pass state_id")
    own = drop_none(fields)
    target: dict[str, Any] = {}
    if isinstance(observed, Mapping):
        target = {"target_id": own.get("target_id", observed.get("target_id"))}
        observed = observed["state_id"]
    if isinstance(action_or_actions, Mapping):
        actions: dict[str, Any] = dict(action_or_actions)
    else:
        actions = {"actions": [dict(action) for action in action_or_actions]}
    params = {
        **session_field(session_id),
        **own,
        **drop_none(target),
        **({} if observed is None else {"state_id": observed}),
        **actions,
        "request_id": own.get("request_id") or new_request_id(),
    }
    timeout_ms = own.get("timeout_ms") or DEFAULT_ACT_TIMEOUT_MS
    return ActCall(
        params=params,
        budget=timeout if timeout is not None else timeout_ms / 1000 + grace,
        postcondition="unknown" if own.get("expect") or own.get("wait_for") else "not_requested",
    )


def unknown_outcome(*, dispatched: bool, postcondition: str, error_type: str, error_text: str) -> ActResult:
    """An act result made by the client when no answer came: nothing is known of what ran."""
    result: dict[str, Any] = {
        "status": "outcome_unknown",
        "execution": "dispatched_unknown" if dispatched else "not_dispatched",
        "observation": "unavailable",
        "postcondition": postcondition,
        "completed": [],
        "events": [],
        "error_type": error_type,
        "error_text": error_text,
    }
    return result  # type: ignore[return-value]


@dataclass(frozen=True)
class Screenshot:
    """A screenshot as bytes. ``scale``: image px per CSS px when the capture was scaled down (a
    click at image point (x, y) is at CSS (x / scale, y / scale)); None at full size. With
    ``annotate=True``: ``state_id``, the observation whose refs are drawn on it, and
    ``not_drawn``, the refs it could not draw (gone, hidden, or outside the image); else None."""

    mime: str
    data: bytes = field(repr=False)
    width: float
    height: float
    scale: float | None
    #: The wire result as it came (``data`` in base64).
    raw: ScreenshotResult = field(repr=False)
    state_id: str | None = None
    not_drawn: list[str] | None = None

    @staticmethod
    def from_wire(result: ScreenshotResult) -> Screenshot:
        return Screenshot(
            mime=result["mime"],
            data=base64.b64decode(result["data"]),
            width=result["width"],
            height=result["height"],
            scale=result.get("scale"),
            raw=result,
            state_id=result.get("state_id"),
            not_drawn=result.get("not_drawn"),
        )


def request_frame(request_id: int, method: str, params: Mapping[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, separators=(",", ":"))


def answer_of(method: str, message: Any) -> Any:
    """The result of one JSON-RPC response, or the error it carries raised as RpcError."""
    if not isinstance(message, dict):
        raise TransportError("bad_response", f"{method}: the answer is not a JSON-RPC response")
    error = message.get("error")
    if isinstance(error, dict):
        raise RpcError(method, error)
    if "result" not in message:
        raise TransportError("bad_response", f"{method}: an answer with neither result nor error")
    return message["result"]
