"""Where an event stream is: the seq of the last event it delivered. Seqs only grow within a
session, so an event at or below it was delivered already (a replay after a reconnect, or a poll
that read the same events again) and is skipped; nothing is delivered twice.
"""

from __future__ import annotations

from typing import Any, Mapping


class EventCursor:
    def __init__(self, after_seq: int | None) -> None:
        #: None: a live-only stream that has not yet learnt where "now" is.
        self.last_seq = after_seq

    def start_at(self, seq: int) -> None:
        """The session's newest seq when the stream began: a live-only stream resumes from there."""
        if self.last_seq is None:
            self.last_seq = seq

    def take(self, event: Mapping[str, Any]) -> bool:
        """Whether ``event`` is new (and moves past it)."""
        seq = event.get("seq")
        if not isinstance(seq, int) or (self.last_seq is not None and seq <= self.last_seq):
            return False
        self.last_seq = seq
        return True
