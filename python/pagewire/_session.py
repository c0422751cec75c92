"""What a session handle is, whichever client holds it: its id, the last observation it received
(what ``act`` acts on by default), and the params its calls send."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ._common import ActCall, act_call, drop_none, session_field
from .types import Action, Observation, SessionListResult


class SessionHandle:
    #: The first tab's id, for a session this client created.
    target_id: str | None = None

    def __init__(self, session_id: str | None, grace: float) -> None:
        self._id = session_id
        self._grace = grace
        self._last: Observation | None = None

    @property
    def id(self) -> str | None:
        """The session's id; None for the principal's ``default`` session (sent without an id)."""
        return self._id

    @property
    def last_observation(self) -> Observation | None:
        """The last observation this handle received (from observe, or an act's fresh_state)."""
        return self._last

    def _params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {**session_field(self._id), **drop_none(params)}

    def _act(
        self,
        action_or_actions: Action | Sequence[Action] | Mapping[str, Any],
        state_id: str | Observation | None,
        fields: Mapping[str, Any],
        timeout: float | None,
    ) -> ActCall:
        return act_call(self._id, action_or_actions, state_id=state_id, last=self._last, fields=fields, grace=self._grace, timeout=timeout)

    def _took(self, result: Any) -> Any:
        """An observation or an act result: the observation it holds becomes the handle's last."""
        fresh = result.get("fresh_state") if "status" in result else result
        if fresh is not None:
            self._last = fresh
        return result

    def _known_id(self) -> str | None:
        return self._id or (self._last["session_id"] if self._last is not None else None)

    @staticmethod
    def _default_id(listed: SessionListResult) -> str | None:
        return next((one["session_id"] for one in listed["sessions"] if one["name"] == "default"), None)


def poll_params(after_seq: int | None, kinds: Sequence[str] | None, wait_ms: int | None) -> dict[str, Any]:
    return {"after_seq": after_seq, "kinds": list(kinds) if kinds else None, "wait_ms": wait_ms}
