"""The asyncio client over the WebSocket: ``await pagewire.connect(url)`` → AsyncClient, and
AsyncSession handles on its sessions. The same guarantees as the TypeScript SDK (docs/sdk.md):
act outcomes are results, never exceptions; an act is sent again after a dropped socket with the
same request_id, so it runs at most once; event streams resume with after_seq; cancelling the
task of an act sends ``cancel`` and returns the ``outcome_unknown`` result.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import TYPE_CHECKING, Any, AsyncIterator, Generator, Generic, Mapping, Sequence, TypeVar

from ._backoff import Backoff
from ._common import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_GRACE,
    RESENDABLE,
    Endpoint,
    Screenshot,
    drop_none,
    session_field,
    unknown_outcome,
)
from ._events import EventCursor
from ._session import SessionHandle, poll_params
from . import types as wire
from .errors import TransportError

if TYPE_CHECKING:
    from ._socket import SocketConnection

T = TypeVar("T")


class _Opening(Generic[T]):
    """Awaited: the thing opened. Entered with ``async with``: opened, and closed at the end."""

    def __init__(self, opening: Any) -> None:
        self._opening = opening
        self._opened: Any = None

    def __await__(self) -> Generator[Any, None, T]:
        return self._opening.__await__()

    async def __aenter__(self) -> T:
        self._opened = await self._opening
        return self._opened  # type: ignore[no-any-return]

    async def __aexit__(self, *exc: object) -> None:
        await self._opened.close()


def connect(
    url: str,
    *,
    token: str | None = None,
    reconnect: Backoff | bool = True,
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    grace: float = DEFAULT_GRACE,
) -> _Opening[AsyncClient]:
    """Connects to a server (the URL of its ready line: ``ws://127.0.0.1:9333/?token=…``).

    ``await pagewire.connect(url)`` or ``async with pagewire.connect(url) as client``. Raises
    TransportError (``connection_failed``) when the first socket cannot be opened.
    """
    return _Opening(AsyncClient._open(Endpoint.parse(url, token), reconnect, call_timeout, grace))


class AsyncClient:
    """One reconnecting WebSocket to a pagewire server, and handles on its sessions."""

    def __init__(self, connection: SocketConnection, *, call_timeout: float, grace: float) -> None:
        self._connection = connection
        self._call_timeout = call_timeout
        self._grace = grace

    @staticmethod
    async def _open(endpoint: Endpoint, reconnect: Backoff | bool, call_timeout: float, grace: float) -> AsyncClient:
        # Imported here: the sync client (POST /rpc) needs nothing outside the standard library.
        from ._socket import SocketConnection

        backoff = reconnect if isinstance(reconnect, Backoff) else Backoff() if reconnect else None
        return AsyncClient(await SocketConnection.open(endpoint, backoff), call_timeout=call_timeout, grace=grace)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def reconnects(self) -> int:
        """How many times the socket dropped and was replaced."""
        return self._connection.reconnects

    @property
    def instance(self) -> str | None:
        """Behind a balancer, the instance this client's sockets reach (where its sessions live)."""
        return self._connection.instance

    def session(self, session_id: str | None = None) -> AsyncSession:
        """A handle on a session by id (None: the principal's ``default`` session). No call is made."""
        return AsyncSession(self, session_id)

    def create_session(self, **options: Any) -> _Opening[AsyncSession]:
        """Creates a session (session.create's params: name, viewport, allow_domains, storage_state…).

        ``await client.create_session(...)``, or ``async with client.create_session(...) as session``
        to close it at the end.
        """
        return _Opening(self._create_session(options))

    async def _create_session(self, options: Mapping[str, Any]) -> AsyncSession:
        created: wire.SessionCreateResult = await self.call("session.create", drop_none(options))
        session = AsyncSession(self, created["session_id"])
        session.target_id = created["target_id"]
        return session

    async def list_sessions(self) -> wire.SessionListResult:
        return await self.call("session.list")

    async def server_info(self) -> wire.ServerInfoResult:
        return await self.call("server.info")

    async def discover(self) -> dict[str, Any]:
        """The OpenRPC document of the server's methods."""
        return await self.call("rpc.discover")

    async def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Any wire method by name: its result, or RpcError / TransportError."""
        return await self._connection.call(
            method, dict(params or {}), resend=method in RESENDABLE, timeout=self._call_timeout if timeout is None else timeout
        )

    async def close(self) -> None:
        """Closes the socket; calls in flight fail with connection_closed. Sessions stay on the server."""
        await self._connection.close()


class _Tabs:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def list(self) -> wire.TabsListResult:
        return await self._session._call("tabs.list", {})

    async def new(self, url: str | None = None, *, select: bool | None = None) -> wire.TabsNewResult:
        """Opens a tab (about:blank, or url up to its DOMContentLoaded); selected unless select is False."""
        return await self._session._call("tabs.new", {"url": url, "select": select})

    async def select(self, target_id: str) -> dict[str, Any]:
        return await self._session._call("tabs.select", {"target_id": target_id})

    async def close(self, target_id: str) -> dict[str, Any]:
        return await self._session._call("tabs.close", {"target_id": target_id})


class AsyncSession(SessionHandle):
    """One session: its tabs, observe and act, modals and events. Every method returns its wire result."""

    def __init__(self, client: AsyncClient, session_id: str | None) -> None:
        super().__init__(session_id, client._grace)
        self._client = client
        self.tabs = _Tabs(self)

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    async def frames(self, target_id: str | None = None) -> wire.FramesListResult:
        return await self._call("frames.list", {"target_id": target_id})

    async def select_frame(self, frame_id: str, *, target_id: str | None = None) -> dict[str, Any]:
        return await self._call("frames.select", {"frame_id": frame_id, "target_id": target_id})

    async def observe(self, **options: Any) -> wire.Observation:
        """observe's params: target_id, frame_id, since, max_elements, include_text, include_boxes, root_ref, format
        (``format="markdown"``: the main content as Markdown in ``markdown``, refs inline), find, find_role, max_bytes, cursor."""
        return self._took(await self._call("observe", options))  # type: ignore[no-any-return]

    async def wait(
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
        """Waits without acting for one of text, a URL glob or a selector, in a state (visible by
        default), then observes. ``condition_not_met`` is a result, not an exception; either way its
        observation becomes the handle's last, so an act after it acts on what it saw."""
        params = {"text": text, "url": url, "selector": selector, "state": state, "timeout_ms": timeout_ms, "target_id": target_id, "frame_id": frame_id}
        result = await self._call("wait", params)
        self._took(result["observation"])
        return result  # type: ignore[no-any-return]

    async def act(
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
        """Acts on an observation (default: the last one this handle received).

        Outcomes (stale_state, click_intercepted, condition_not_met…) are results; only a
        JSON-RPC error (session_not_found, invalid_params…) or the transport raises. Cancelling
        the task, or the client-side budget (``timeout``, default timeout_ms plus the grace)
        running out, sends ``cancel`` and returns the server's answer to the cancelled act, or an
        ``outcome_unknown`` result made here when none comes within the grace.
        """
        connection = self._client._connection
        fields = {"wait_for": wait_for, "expect": expect, "timeout_ms": timeout_ms, "request_id": request_id}
        act = self._act(action_or_actions, state_id, {**fields, "target_id": target_id, "screenshot": screenshot}, timeout)
        entry = connection.register("act", act.params, resend=True)
        why = "timeout"
        try:
            await connection.send(entry)
            result: wire.ActResult = await asyncio.wait_for(asyncio.shield(entry.future), act.budget)
            return self._took(result)
        except asyncio.TimeoutError:
            pass
        except asyncio.CancelledError:
            why = "cancelled"
            # The caller's cancellation becomes the act's outcome: the task ends with a result.
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
        return await self._stop_act(entry, why, act.postcondition, act.budget)

    async def _stop_act(self, entry: Any, why: str, postcondition: str, budget: float) -> wire.ActResult:
        connection = self._client._connection
        error_type = "operation_cancelled" if why == "cancelled" else "timeout"
        said = "cancelled by the caller" if why == "cancelled" else f"no answer within the client's budget of {budget:g} s"
        if not entry.written:
            connection.forget(entry)
            return unknown_outcome(dispatched=False, postcondition=postcondition, error_type=error_type, error_text=f"{said} before it was sent")
        grace = self._client._grace
        cancelling = asyncio.ensure_future(self._cancel_quietly(grace))
        try:
            result: wire.ActResult = await asyncio.wait_for(asyncio.shield(entry.future), grace)
            return self._took(result)
        except (asyncio.TimeoutError, TransportError):
            connection.forget(entry)
            return unknown_outcome(
                dispatched=True,
                postcondition=postcondition,
                error_type=error_type,
                error_text=f"{said}; cancel was sent and no answer came: the act may or may not have run",
            )
        finally:
            await asyncio.gather(cancelling, return_exceptions=True)

    async def _cancel_quietly(self, timeout: float) -> None:
        try:
            await self._client._connection.call("cancel", session_field(self._id), resend=False, timeout=timeout)
        except Exception:  # best effort: the act's own answer is what counts
            pass

    async def screenshot(self, **options: Any) -> Screenshot:
        """screenshot's params (full_page, ref, format, quality, max_side, max_pixels, annotate, refs…): the image as
        bytes, with its scale (and with annotate, the state drawn and the refs not drawn)."""
        return Screenshot.from_wire(await self._call("screenshot", options))

    async def pdf(
        self,
        *,
        landscape: bool | None = None,
        paper: str | None = None,
        ranges: str | None = None,
        target_id: str | None = None,
    ) -> wire.PagePdfResult:
        """The tab printed to a new PDF in the session's downloads folder on the server's machine
        (password inputs and secrets masked): its ``path``, ``size`` and ``pages``. Not sent again
        after a drop (each call writes a file)."""
        return await self._call("page.pdf", {"landscape": landscape, "paper": paper, "ranges": ranges, "target_id": target_id})

    async def trace_start(self) -> wire.TraceStartResult:
        """Records every call on the session from now on, with screenshots around each act."""
        return await self._call("trace.start", {})

    async def trace_stop(self) -> wire.TraceStopResult:
        """Stops recording; what was recorded stays for ``trace_export``."""
        return await self._call("trace.stop", {})

    async def trace_export(self) -> wire.TraceExportResult:
        """What was recorded, written as a zip in the session's downloads folder on the server's machine:
        its ``path``, ``size``, ``steps``, ``frames`` and ``dropped_frames``. Not sent again after a drop
        (each call writes a file)."""
        return await self._call("trace.export", {})

    async def cancel(self) -> dict[str, Any]:
        """Interrupts the session's running call (whichever client made it)."""
        return await self._call("cancel", {})

    async def handle_dialog(self, accept: bool, *, prompt_text: str | None = None, target_id: str | None = None) -> wire.DialogHandleResult:
        return await self._call("dialog.handle", {"accept": accept, "prompt_text": prompt_text, "target_id": target_id})

    async def resolve_file_chooser(self, paths: Sequence[str] | None = None, *, target_id: str | None = None) -> wire.FileChooserResolveResult:
        """Gives files to the pending file chooser (paths under --uploads), or cancels it (no paths)."""
        return await self._call("file_chooser.resolve", {"paths": list(paths) if paths is not None else None, "target_id": target_id})

    async def downloads(self) -> wire.DownloadsListResult:
        return await self._call("downloads.list", {})

    async def network(self, *, target_id: str | None = None, since: int | None = None) -> wire.NetworkListResult:
        """The network log (its first call starts it): every request after ``since``, of one tab or all."""
        return await self._call("network.list", {"target_id": target_id, "since": since})

    async def storage_state(self) -> wire.StorageState:
        """Cookies and localStorage in Playwright's storageState shape (create_session takes it back)."""
        return await self._call("session.storage_state", {})

    async def poll_events(self, *, after_seq: int | None = None, kinds: Sequence[str] | None = None, wait_ms: int | None = None) -> wire.EventsPollResult:
        """One long poll (events.poll): the retained events after ``after_seq``, waiting up to ``wait_ms`` for a first one."""
        return await self._call("events.poll", poll_params(after_seq, kinds, wait_ms))

    def events(self, *, kinds: Sequence[str] | None = None, after_seq: int | None = None) -> AsyncEventStream:
        """The session's events as an async iterator, resumed across reconnects (``async with`` closes it)."""
        return AsyncEventStream(self, kinds, after_seq)

    async def close(self) -> dict[str, Any]:
        """Closes the session on the server (the ``default`` one too: its id is looked up first)."""
        session_id = self._known_id()
        if session_id is None:
            listed = await self._client.list_sessions()
            session_id = self._default_id(listed)
            if session_id is None:
                return {"closed": True}  # never created: nothing to close
        return await self._client.call("session.close", {"session_id": session_id})

    async def _call(self, method: str, params: Mapping[str, Any]) -> Any:
        return await self._client.call(method, self._params(params))



class AsyncEventStream:
    """A session's events, resumed after a reconnect with ``after_seq`` (none lost, none twice).

    A subscription dies with its socket, so after a reconnect the stream subscribes again from the
    last seq it delivered, and the server replays what it retained since.
    """

    def __init__(self, session: AsyncSession, kinds: Sequence[str] | None, after_seq: int | None) -> None:
        self._session = session
        self._connection = session._client._connection
        self._kinds = list(kinds) if kinds else None
        self._cursor = EventCursor(after_seq)
        self._queue: asyncio.Queue[wire.SessionEvent | BaseException | None] = asyncio.Queue()
        self._subscription: str | None = None
        #: Events that came while a subscribe was on the wire: its replay can be read before the reply's awaiter runs.
        self._early: list[dict[str, Any]] | None = None
        self._generation = 0
        self._ended = False
        self._disposers = [
            self._connection.on_notification(self._on_notification),
            self._connection.on_reconnect(self._on_reconnect),
            self._connection.on_close(self._end),
        ]
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._subscribing = asyncio.ensure_future(self._subscribe())

    @property
    def last_seq(self) -> int | None:
        """The seq of the last event delivered (or where the stream started)."""
        return self._cursor.last_seq

    def __aiter__(self) -> AsyncIterator[wire.SessionEvent]:
        return self

    async def __anext__(self) -> wire.SessionEvent:
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)
            raise StopAsyncIteration
        if isinstance(item, BaseException):
            self._queue.put_nowait(item)
            raise item
        return item

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Ends the stream and unsubscribes."""
        self._end(None)
        await asyncio.gather(self._subscribing, return_exceptions=True)
        await self._unsubscribe()

    async def _subscribe(self) -> None:
        if self._ended:
            return
        self._generation += 1
        generation = self._generation
        params = {
            **session_field(self._session.id),
            **({"kinds": self._kinds} if self._kinds else {}),
            **({"after_seq": self._cursor.last_seq} if self._cursor.last_seq is not None else {}),
        }
        self._early = []
        try:
            # Not re-sent by the connection: after a reconnect the stream subscribes anew itself.
            result = await self._connection.call("events.subscribe", params, resend=False, timeout=self._session._client._call_timeout)
        except TransportError as error:
            if generation == self._generation:
                self._early = None
            if error.error_type == "connection_lost":
                return  # the reconnect subscribes again
            if generation == self._generation:
                self._end(error)
            return
        except Exception as error:  # an RpcError: the session is gone, or the params are wrong
            if generation == self._generation:
                self._end(error)
            return
        if generation != self._generation:
            return
        self._subscription = result["subscription_id"]
        early, self._early = self._early or [], None
        if self._ended:
            await self._unsubscribe()
            return
        # A live-only stream learns where "now" was, so that a reconnect before its first event still replays from there.
        self._cursor.start_at(result["last_seq"])
        if not self.ready.done():
            self.ready.set_result(None)
        for params in early:
            self._on_notification("event", params)

    async def _unsubscribe(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is None or self._connection.state != "open":
            return
        try:
            await self._connection.call("events.unsubscribe", {"subscription_id": subscription}, resend=False, timeout=self._session._client._call_timeout)
        except Exception:  # the subscription dies with its socket anyway
            pass

    def _on_reconnect(self) -> None:
        self._subscription = None
        self._subscribing = asyncio.ensure_future(self._subscribe())

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        if method != "event" or self._ended:
            return
        if self._subscription is None and self._early is not None:
            self._early.append(params)
            return
        if params.get("subscription_id") != self._subscription:
            return
        event = {key: value for key, value in params.items() if key != "subscription_id"}
        if not self._cursor.take(event):
            return
        self._queue.put_nowait(event)  # type: ignore[arg-type]
        if event.get("kind") == "session_closed":
            self._end(None)

    def _end(self, error: BaseException | None) -> None:
        if self._ended:
            return
        self._ended = True
        for dispose in self._disposers:
            dispose()
        if not self.ready.done():
            if error is None:
                self.ready.set_result(None)
            else:
                self.ready.set_exception(error)
                self.ready.exception()  # retrieved: next() reports it, `ready` need not be awaited
        self._queue.put_nowait(error)
