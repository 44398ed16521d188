"""Refusals back off: the schedule itself (seeded jitter, a clock of our own), with no
server; the real refusals are in test_connections.py."""

from __future__ import annotations

import random

import pytest

from simrate.core.base.errors import SimrateError
from simrate.hub.link.backoff import Backoff, patiently, total_wait
from simrate.hub.link.connection import HubError


def test_the_schedule_doubles_to_the_cap_with_full_jitter():
    backoff = Backoff(base=1.0, cap=60.0, rng=random.Random(27))
    same = random.Random(27)
    delays = [backoff.next_delay() for _ in range(9)]
    ceilings = [min(60.0, 2.0 ** n) for n in range(9)]
    assert ceilings == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    # each wait is drawn between 0 and its ceiling, from the given random source
    assert delays == [same.uniform(0.0, ceiling) for ceiling in ceilings]
    assert all(0.0 <= d <= c for d, c in zip(delays, ceilings, strict=True))
    assert backoff.ceiling() == 60.0
    backoff.reset()  # a success: the next refusal starts over
    assert backoff.ceiling() == 1.0 and backoff.next_delay() <= 1.0


def test_jitter_spreads_clients_refused_together():
    """Two hundred windows refused at the same moment do not come back together."""
    firsts = sorted(Backoff(rng=random.Random(seed)).next_delay() for seed in range(200))
    thirds = []
    for seed in range(200):
        backoff = Backoff(rng=random.Random(seed))
        backoff.next_delay(), backoff.next_delay()
        thirds.append(backoff.next_delay())
    assert firsts[-1] - firsts[0] > 0.9  # spread over the whole first second
    assert max(thirds) > 3.0 and sum(thirds) / len(thirds) > sum(firsts) / len(firsts) * 2


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_patiently_gives_up_after_the_total_wait_and_says_how_often_it_tried():
    clock = FakeClock()
    tries = []

    def refused():
        tries.append(clock.now)
        raise HubError("hub full (h:1/db): the login's connection limit is reached", "full")

    with pytest.raises(HubError) as caught:
        patiently(refused, 30.0, Backoff(rng=random.Random(1)), clock.sleep, clock)
    assert caught.value.kind == "full"
    assert caught.value.message.startswith("hub full")
    assert f"tried {len(tries)} times over 30 s" in caught.value.message
    assert clock.now == pytest.approx(30.0)  # the whole wait, not a second more
    # the waits follow the schedule (the last one cut to what was left)
    expected = Backoff(rng=random.Random(1))
    for wait in clock.sleeps[:-1]:
        assert wait == expected.next_delay()
    assert len(tries) == len(clock.sleeps) + 1 >= 5


def test_patiently_returns_once_the_hub_has_room_and_never_retries_other_refusals():
    clock = FakeClock()
    answers = iter([HubError("hub full", "full"), HubError("hub unreachable", "unreachable"),
                    "done"])

    def action():
        answer = next(answers)
        if isinstance(answer, HubError):
            raise answer
        return answer

    assert patiently(action, 30.0, Backoff(rng=random.Random(2)), clock.sleep, clock) == "done"
    assert len(clock.sleeps) == 2
    for kind in ("password", "removed", "database", "refused", "newer", "project"):
        calls: list[int] = []

        def wrong(kind=kind, calls=calls):
            calls.append(1)
            raise HubError("no", kind)

        with pytest.raises(HubError):
            patiently(wrong, 30.0, Backoff(), clock.sleep, clock)
        assert len(calls) == 1, kind
    calls = []

    def unreachable():
        calls.append(1)
        raise HubError("hub unreachable", "unreachable")

    with pytest.raises(HubError) as caught:  # no wait: one try, the plain message
        patiently(unreachable, 0.0, Backoff(), clock.sleep, clock)
    assert len(calls) == 1 and caught.value.message == "hub unreachable"


def test_the_total_wait_comes_from_the_option_or_the_environment(monkeypatch):
    monkeypatch.delenv("SIMRATE_HUB_WAIT", raising=False)
    assert total_wait() == 30.0
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "7.5")
    assert total_wait() == 7.5
    assert total_wait(2) == 2.0
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "soon")
    with pytest.raises(SimrateError, match="SIMRATE_HUB_WAIT: not a number"):
        total_wait()
    for endless in ("inf", "Infinity", "nan", "1e400"):  # the rule of --wait: never for ever
        monkeypatch.setenv("SIMRATE_HUB_WAIT", endless)
        with pytest.raises(SimrateError, match="SIMRATE_HUB_WAIT: not a finite number"):
            total_wait()
    with pytest.raises(SimrateError, match="0 or more seconds"):
        total_wait(-1)
