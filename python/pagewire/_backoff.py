"""Reconnect delays: exponential with full jitter (a random point between 0 and the cap), so that
many clients dropped at once by one server restart do not come back in step. The same numbers as
the TypeScript SDK: 100 ms doubling to 5 s, giving up after 60 s down.
"""

from __future__ import annotations

import random as _random
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Backoff:
    #: The cap of the first retry's delay, in seconds.
    initial_delay: float = 0.1
    #: The largest cap, in seconds.
    max_delay: float = 5.0
    #: Give up when the server has been unreachable this long, in seconds.
    give_up_after: float = 60.0
    #: A number in [0, 1); a test can fix it.
    random: Callable[[], float] = field(default=_random.random, repr=False)
    _attempt: int = field(default=0, repr=False)

    def next(self) -> float:
        """The delay before the next attempt, in seconds."""
        cap = min(self.max_delay, self.initial_delay * 2**self._attempt)
        self._attempt = min(self._attempt + 1, 30)
        return cap * self.random()

    def reset(self) -> None:
        self._attempt = 0
