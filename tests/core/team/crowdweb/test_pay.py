"""crowd bonus's amounts: the top-up formula on the same data, to the cent."""

from __future__ import annotations

import statistics
from decimal import ROUND_HALF_UP, Decimal

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.crowdweb.pay import bonus_list, money
from simrate.core.team.crowdweb.review import review_study
from tests.core.team.crowdweb.simulated import simulate


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    path = tmp_path_factory.mktemp("pay") / "p.simrate"
    planted = simulate(path, workers=60, seed=3)
    with Project.open(path) as project:
        review = review_study(project, "s", now=planted.end + 7200)
    return planted, review


def cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def test_top_up_follows_the_median_time_to_the_cent(study):
    planted, review = study
    rate, top, reward = Decimal("9.00"), Decimal("12.00"), Decimal("0.10")
    result = bonus_list(review, per_hour=rate, top_up_to=top, reward=reward)
    # the formula, on the simulation's own clock (the worker's Start to last rating)
    complete = list(planted.seconds.values())
    median_hours = Decimal(str(round(statistics.median(complete), 3))) / 3600
    floor = top * median_hours - reward
    approved = {w.worker for w in review.of("approve")}
    expected = {w: cents(max(rate * Decimal(str(round(planted.seconds[w], 3))) / 3600, floor))
                for w in approved}
    assert dict((b.worker, b.amount) for b in result.bonuses) == expected
    assert result.total == sum(expected.values())
    assert any(b.top_up > 0 for b in result.bonuses)  # the floor lifted some
    assert any(b.top_up == 0 for b in result.bonuses)  # and others earned more
    assert all(f"{a}" == f"{a:.2f}" for _w, a in result.rows() for a in [Decimal(a)])


def test_per_rating_pays_the_approved_only(study):
    _planted, review = study
    result = bonus_list(review, per_rating=Decimal("0.035"))
    assert {b.worker for b in result.bonuses} == {w.worker for w in review.of("approve")}
    assert all(b.amount == Decimal("0.49") for b in result.bonuses)  # 14 x 0.035 = 0.49
    assert set(result.left_out) == {w.worker for w in review.workers
                                    if w.decision != "approve"}
    assert result.to_json()["total"] == f"{Decimal('0.49') * len(result.bonuses):.2f}"


def test_amounts_are_checked():
    assert money(" 9.5 ", "--per-hour") == Decimal("9.5")
    for text in ("-1", "nan", "inf", "1e9", "x"):
        with pytest.raises(SimrateError, match="--per-hour"):
            money(text, "--per-hour")
