"""Bonuses and underpay top-ups after a web study (`crowd bonus`), as exact decimals.

Each approved worker (crowdweb/review.py) is paid a bonus for the time on task the server
measured (`per_hour`) or for the ratings given, checks included (`per_rating`). A top-up
(`top_up_to`, a rate per hour) follows Prolific's rule of the median: the reward already
paid (`reward`) plus the bonus must reach the rate for the study's median completion time,
so every approved worker gets at least `top_up_to * median hours - reward`. Amounts are
rounded to the cent, half up, one by one; the total is the sum of the rounded amounts, so
the file and its total agree to the cent. A worker whose amount is 0.00 is left out of the
file (the platforms refuse a bonus of nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from simrate.core.base.errors import SimrateError
from simrate.core.team.crowdweb.review import StudyReview

CENT = Decimal("0.01")
SECONDS_PER_HOUR = Decimal(3600)


@dataclass(frozen=True)
class Bonus:
    """One worker's bonus, and what it is made of."""

    worker: str
    amount: Decimal  #: what the file says, to the cent
    base: Decimal  #: from the hours or the ratings, before the top-up (unrounded)
    top_up: Decimal  #: added to reach the top-up rate (unrounded)
    seconds: float
    ratings: int


@dataclass(frozen=True)
class BonusList:
    """The bonuses of a study with their total and the figures they rest on."""

    study: str
    bonuses: list[Bonus]
    left_out: dict[str, str]  #: worker -> why no bonus (not approved, or 0.00)
    median_seconds: float | None
    floor: Decimal  #: the least bonus an approved worker gets under the top-up

    @property
    def total(self) -> Decimal:
        """The sum of the amounts in the file."""
        return sum((b.amount for b in self.bonuses), Decimal("0.00"))

    def rows(self) -> list[tuple[str, str]]:
        """(worker id, amount with two decimals): Prolific's bulk bonus lines."""
        return [(b.worker, f"{b.amount:.2f}") for b in self.bonuses]

    def to_json(self) -> dict:
        """The list as one JSON object (amounts as decimal text, never floats)."""
        return {"study": self.study, "workers": len(self.bonuses), "total": f"{self.total:.2f}",
                "median_seconds": self.median_seconds, "top_up_floor": f"{self.floor:.2f}",
                "bonuses": [{"worker": b.worker, "amount": f"{b.amount:.2f}",
                             "seconds": b.seconds, "ratings": b.ratings} for b in self.bonuses],
                "left_out": self.left_out}


def money(text: str, name: str) -> Decimal:
    """A non-negative amount or rate as an exact Decimal; SimrateError naming the option."""
    from decimal import InvalidOperation

    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise SimrateError(f"{name}: {str(text)[:40]!r} is not an amount") from None
    if not value.is_finite() or value < 0 or value > Decimal(1_000_000):
        raise SimrateError(f"{name}: {str(text)[:40]!r} is not an amount from 0 to 1000000")
    return value


def bonus_list(review: StudyReview, per_hour: Decimal | None = None,
               per_rating: Decimal | None = None, top_up_to: Decimal | None = None,
               reward: Decimal = Decimal(0)) -> BonusList:
    """The bonus of every approved worker of the review (see the module's doc); exactly one
    of `per_hour` and `per_rating` is given."""
    if (per_hour is None) == (per_rating is None):
        raise SimrateError("give either --per-hour RATE or --per-rating AMOUNT")
    floor = Decimal(0)
    if top_up_to is not None and review.median_seconds is not None:
        median_hours = _hours(review.median_seconds)
        floor = max(Decimal(0), top_up_to * median_hours - reward)
    bonuses, left_out = [], {}
    for worker in review.workers:
        if worker.decision != "approve":
            left_out[worker.worker] = f"not approved ({worker.decision})"
            continue
        base = per_hour * _hours(worker.seconds) if per_hour is not None \
            else Decimal(per_rating or 0) * worker.ratings
        top = max(Decimal(0), floor - base)
        amount = (base + top).quantize(CENT, rounding=ROUND_HALF_UP)
        if amount <= 0:
            left_out[worker.worker] = "a bonus of 0.00"
            continue
        bonuses.append(Bonus(worker.worker, amount, base, top, worker.seconds, worker.ratings))
    return BonusList(review.study, bonuses, left_out, review.median_seconds, floor)


def _hours(seconds: float) -> Decimal:
    """Seconds (the server's, to the millisecond) as exact hours."""
    return Decimal(str(round(seconds, 3))) / SECONDS_PER_HOUR
