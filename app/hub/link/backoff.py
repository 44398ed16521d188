"""Backing off when the hub refuses: exponential backoff with full jitter, for every client.

When the hub is full or does not answer, every window and command waits before trying
again, and waits longer each time: the n-th wait is drawn at random between 0 and
min(CAP, BASE * 2**n) seconds ("full jitter"), so hundreds of clients that were refused
together do not all come back together. A success starts the schedule over.

The window uses `Backoff` for its retries; `team sync`, `team join` and `team publish`
use `patiently`, which gives up after a total wait (SIMRATE_HUB_WAIT seconds, 30 unless
set, or the command's --wait) and raises the last refusal.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable
from typing import TypeVar

from simrate.core.base.errors import SimrateError
from simrate.core.data.values import finite
from simrate.hub.link.connection import HubError

T = TypeVar("T")

#: Seconds: the first wait's ceiling; each refusal doubles it, up to CAP.
BASE = 1.0
#: Seconds: the longest single wait.
CAP = 60.0
#: Seconds a command keeps trying a full or unreachable hub before it gives up.
DEFAULT_WAIT = 30.0
#: The environment variable that sets that total wait for the commands.
WAIT_VARIABLE = "SIMRATE_HUB_WAIT"
#: The HubError kinds worth trying again: the hub may have room or answer later. A wrong
#: password, a removed login or a missing database stay what they are.
RETRY_KINDS = frozenset({"full", "unreachable"})


class Backoff:
    """The waits between tries: full jitter over a doubling ceiling."""

    def __init__(self, base: float = BASE, cap: float = CAP,
                 rng: random.Random | None = None):
        self.base = base
        self.cap = cap
        self.rng = rng or random.Random()
        self.attempts = 0  # refusals since the last success

    def ceiling(self, attempt: int | None = None) -> float:
        """The longest wait after refusal number `attempt` (0 = the first)."""
        n = self.attempts if attempt is None else attempt
        return min(self.cap, self.base * 2 ** min(n, 62))

    def next_delay(self) -> float:
        """Seconds to wait after one more refusal."""
        delay = self.rng.uniform(0.0, self.ceiling())
        self.attempts += 1
        return delay

    def reset(self) -> None:
        """The hub answered: the next refusal starts from the first ceiling."""
        self.attempts = 0


def total_wait(value: float | None = None) -> float:
    """The total seconds a command keeps trying: `value` when given, else
    SIMRATE_HUB_WAIT, else DEFAULT_WAIT."""
    if value is not None:
        seconds = value
    else:
        text = os.environ.get(WAIT_VARIABLE, "").strip()
        if not text:
            return DEFAULT_WAIT
        seconds = finite(text, WAIT_VARIABLE)  # the rule of --wait: inf would wait for ever
    if not (seconds >= 0 and math.isfinite(seconds)):  # also refuses NaN
        raise SimrateError(f"the wait for the hub must be 0 or more seconds, not {seconds}")
    return float(seconds)


def patiently(action: Callable[[], T], wait: float, backoff: Backoff | None = None,
              sleep: Callable[[float], None] = time.sleep,
              clock: Callable[[], float] = time.monotonic) -> T:
    """`action()`, tried again with backoff while the hub is full or unreachable, for up
    to `wait` seconds in all; then the last HubError, saying how many tries it took."""
    backoff = backoff or Backoff()
    started = clock()
    tries = 0
    while True:
        tries += 1
        try:
            return action()
        except HubError as exc:
            if exc.kind not in RETRY_KINDS:
                raise
            left = wait - (clock() - started)
            if left <= 0:
                raise _gave_up(exc, tries, clock() - started) from None
            sleep(min(backoff.next_delay(), left))


def _gave_up(exc: HubError, tries: int, waited: float) -> HubError:
    if tries == 1:
        return exc
    return HubError(f"{exc.message} (tried {tries} times over {waited:.0f} s)", exc.kind)
