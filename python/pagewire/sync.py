"""The synchronous client, for scripts and notebooks: ``pagewire.Client(url)`` and Session, the
same API as the asyncio one, over the HTTP door (POST /rpc).

Over HTTP rather than the socket on a background loop: no thread and no event loop of its own
(a notebook already runs one, and ``asyncio.run`` cannot run inside it), nothing but the standard
library, and every call is one request that can be sent again on its own. Events come by long
poll (events.poll), which needs nothing held open between two calls.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from ._backoff import Backoff
from ._common import DEFAULT_CALL_TIMEOUT, DEFAULT_GRACE, RESENDABLE, Endpoint, Screenshot, drop_none, session_field, unknown_outcome
from ._events import EventCursor
from ._session import SessionHandle, poll_params
from ._http import HttpTransport
from . import types as wire
from .errors import TransportError

#: How long one poll of an event iterator waits on the server (ms): under the call budget.
POLL_WAIT_MS = 25_000


class Client:
    """A pagewire server over POST /rpc. ``with pagewire.Client(url) as client: …``"""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        reconnect: Backoff | bool = True,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        grace: float = DEFAULT_GRACE,
    ) -> None:
        backoff = reconnect if isinstance(reconnect, Backoff) else Backoff() if reconnect else None
        self._transport = HttpTransport(Endpoint.parse(url, token), backoff)
        self._call_timeout = call_timeout
        self._grace = grace

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def retries(self) -> int:
        """How many times a call was sent again after the server could not be reached."""
        return self._transport.retries

    @property
    def instance(self) -> str | None:
        """Behind a balancer, the instance this client's requests name (the one that answered last)."""
        return self._transport.instance

    def session(self, session_id: str | None = None) -> Session:
        """A handle on a session by id (None: the principal's ``default`` session). No call is made."""
        return Session(self, session_id)

    def create_session(self, **options: Any) -> Session:
        """Creates a session (session.create's params); ``with client.create_session(...) as session`` closes it at the end."""
        created: wire.SessionCreateResult = self.call("session.create", drop_none(options))
        session = Session(self, created["session_id"])
        session.target_id = created["target_id"]
        return session

    def list_sessions(self) -> wire.SessionListResult:
        return self.call("session.list")

    def server_info(self) -> wire.ServerInfoResult:
        return self.call("server.info")

    def discover(self) -> dict[str, Any]:
        return self.call("rpc.discover")

    def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Any wire method by name: its result, or RpcError / TransportError."""
        return self._transport.call(
            method, dict(params or {}), resend=method in RESENDABLE, timeout=self._call_timeout if timeout is None else timeout
        )

    def close(self) -> None:
        """Closes the kept connections. Sessions stay on the server."""
        self._transport.close()


class _Tabs:
    def __init__(self, session: Session) -> None:
        self._session = session

    def list(self) -> wire.TabsListResult:
        return self._session._call("tabs.list", {})

    def new(self, url: str | None = None, *, select: bool | None = None) -> wire.TabsNewResult:
        return self._session._call("tabs.new", {"url": url, "select": select})

    def select(self, target_id: str) -> dict[str, Any]:
        return self._session._call("tabs.select", {"target_id": target_id})

    def close(self, target_id: str) -> dict[str, Any]:
        return self._session._call("tabs.close", {"target_id": target_id})


class Session(SessionHandle):
    """One session, synchronously: the methods of AsyncSession, each returning its wire result."""

    def __init__(self, client: Client, session_id: str | None) -> None:
        super().__init__(session_id, client._grace)
        self._client = client
        self.tabs = _Tabs(self)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def frames(self, target_id: str | None = None) -> wire.FramesListResult:
        return self._call("frames.list", {"target_id": target_id})

    def select_frame(self, frame_id: str, *, target_id: str | None = None) -> dict[str, Any]:
        return self._call("frames.select", {"frame_id": frame_id, "target_id": target_id})

    def observe(self, **options: Any) -> wire.Observation:
        return self._took(self._call("observe", options))  # type: ignore[no-any-return]

    def wait(
        self,
        *,
        text: str | None = None,
        url: str | None = None,
        selector: str | None = None,
        state: str | None = None,
        timeout_ms: int | None = None,
        target_id: str | None = None,
        frame_id: str | None = None,
    ) -> wire.WaitResult:
        """As AsyncSession.wait."""
        params = {"text": text, "url": url, "selector": selector, "state": state, "timeout_ms": timeout_ms, "target_id": target_id, "frame_id": frame_id}
        result = self._call("wait", params)
        self._took(result["observation"])
        return result  # type: ignore[no-any-return]

    def act(
        self,
        action_or_actions: wire.Action | Sequence[wire.Action] | Mapping[str, Any],
        *,
        state_id: str | wire.Observation | None = None,
        wait_for: Mapping[str, Any] | None = None,
        expect: Mapping[str, Any] | None = None,
        timeout_ms: int | None = None,
        request_id: str | None = None,
        target_id: str | None = None,
        screenshot: str | None = None,
        timeout: float | None = None,
    ) -> wire.ActResult:
        """As AsyncSession.act. Past its budget it sends ``cancel`` and asks again with the same
        request_id, so the answer is the act's own record (``outcome_unknown`` for a cancelled
        one); Ctrl-C sends ``cancel`` before it propagates."""
        fields = {"wait_for": wait_for, "expect": expect, "timeout_ms": timeout_ms, "request_id": request_id}
        act = self._act(action_or_actions, state_id, {**fields, "target_id": target_id, "screenshot": screenshot}, timeout)
        transport = self._client._transport
        try:
            return self._took(transport.call("act", act.params, resend=True, timeout=act.budget))
        except TransportError as error:
            if error.error_type != "client_timeout":
                raise
        except KeyboardInterrupt:
            self._cancel_quietly()
            raise
        self._cancel_quietly()
        try:
            return self._took(transport.call("act", act.params, resend=True, timeout=self._client._grace))
        except TransportError:
            return unknown_outcome(
                dispatched=True,
                postcondition=act.postcondition,
                error_type="timeout",
                error_text=f"no answer within the client's budget of {act.budget:g} s; cancel was sent: the act may or may not have run",
            )

    def screenshot(self, **options: Any) -> Screenshot:
        return Screenshot.from_wire(self._call("screenshot", options))

    def pdf(
        self,
        *,
        landscape: bool | None = None,
        paper: str | None = None,
        ranges: str | None = None,
        target_id: str | None = None,
    ) -> wire.PagePdfResult:
        """The tab printed to a new PDF in the session's downloads folder on the server's machine
        (password inputs and secrets masked): its ``path``, ``size`` and ``pages``."""
        return self._call("page.pdf", {"landscape": landscape, "paper": paper, "ranges": ranges, "target_id": target_id})

    def trace_start(self) -> wire.TraceStartResult:
        """Records every call on the session from now on, with screenshots around each act."""
        return self._call("trace.start", {})

    def trace_stop(self) -> wire.TraceStopResult:
        """Stops recording; what was recorded stays for ``trace_export``."""
        return self._call("trace.stop", {})

    def trace_export(self) -> wire.TraceExportResult:
        """What was recorded, written as a zip in the session's downloads folder on the server's machine:
        its ``path``, ``size``, ``steps``, ``frames`` and ``dropped_frames`` (the inspector opens it)."""
        return self._call("trace.export", {})

    def cancel(self) -> dict[str, Any]:
        return self._call("cancel", {})

    def handle_dialog(self, accept: bool, *, prompt_text: str | None = None, target_id: str | None = None) -> wire.DialogHandleResult:
        return self._call("dialog.handle", {"accept": accept, "prompt_text": prompt_text, "target_id": target_id})

    def resolve_file_chooser(self, paths: Sequence[str] | None = None, *, target_id: str | None = None) -> wire.FileChooserResolveResult:
        return self._call("file_chooser.resolve", {"paths": list(paths) if paths is not None else None, "target_id": target_id})

    def downloads(self) -> wire.DownloadsListResult:
        return self._call("downloads.list", {})

    def network(self, *, target_id: str | None = None, since: int | None = None) -> wire.NetworkListResult:
        return self._call("network.list", {"target_id": target_id, "since": since})

    def storage_state(self) -> wire.StorageState:
        return self._call("session.storage_state", {})

    def poll_events(self, *, after_seq: int | None = None, kinds: Sequence[str] | None = None, wait_ms: int | None = None) -> wire.EventsPollResult:
        return self._call("events.poll", poll_params(after_seq, kinds, wait_ms))

    def events(self, *, kinds: Sequence[str] | None = None, after_seq: int | None = None) -> Iterator[wire.SessionEvent]:
        """The session's events, by long poll, for as long as the loop runs (until session_closed).
        Each poll starts after the last seq seen, so nothing is lost or delivered twice."""
        cursor = EventCursor(after_seq)
        while True:
            answer = self.poll_events(after_seq=cursor.last_seq, kinds=kinds, wait_ms=POLL_WAIT_MS)
            for event in answer["events"]:
                if cursor.take(event):
                    yield event
                    if event["kind"] == "session_closed":
                        return
            # Past the events of other kinds too: the next poll reads none of them again.
            cursor.last_seq = max(cursor.last_seq or 0, answer["last_seq"])

    def close(self) -> dict[str, Any]:
        session_id = self._known_id()
        if session_id is None:
            listed = self._client.list_sessions()
            session_id = self._default_id(listed)
            if session_id is None:
                return {"closed": True}
        return self._client.call("session.close", {"session_id": session_id})

    def _call(self, method: str, params: Mapping[str, Any]) -> Any:
        return self._client.call(method, self._params(params))

    def _cancel_quietly(self) -> None:
        try:
            self._client._transport.call("cancel", session_field(self._id), resend=False, timeout=self._client._grace)
        except Exception:  # best effort: the act's own answer is what counts
            pass

