"""Agreement over time: alpha with its interval and each rater's r against the rest after
every N ratings, in the order given; and the XLSX report's sheet of it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from openpyxl import load_workbook

from simrate.core.agreement.batch import alpha
from simrate.core.agreement.correlation import pearson_vs_rest
from simrate.core.agreement.reports.over_time import agreement_over_time, step_for
from simrate.services.exports.xlsx_agreement import OVER_TIME_SHEET


def study(n_items: int = 120, drift_from: int = 60, seed: int = 4) -> pd.DataFrame:
    """Three raters item by item; 'cy' follows the truth until item `drift_from`, then
    answers at random."""
    rng = np.random.default_rng(seed)
    rows, clock = [], 1_000_000.0
    for i in range(n_items):
        truth = rng.uniform(0, 5)
        for rater in ("ax", "bo", "cy"):
            if rater == "cy" and i >= drift_from:
                score = rng.uniform(0, 5)
            else:
                score = truth + rng.normal(0, 0.3)
            clock += 1.0
            rows.append((f"i{i}", rater, float(np.clip(np.round(score * 4) / 4, 0, 5)), clock))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "score", "updated_at"])


def test_the_last_point_is_the_agreement_of_all_the_ratings():
    ratings = study()
    step, points = agreement_over_time(ratings, every=30)
    assert step == 30 and [p.ratings for p in points] == list(range(30, 361, 30))
    wide = ratings.pivot(index="annotator", columns="item_id", values="score")
    assert points[-1].alpha == pytest.approx(alpha(wide.to_numpy()))
    vs_rest = dict(zip(wide.index, pearson_vs_rest(wide.to_numpy()), strict=True))
    for rater, r in points[-1].vs_rest.items():
        assert r == pytest.approx(vs_rest[rater])
    assert points[-1].low < points[-1].alpha < points[-1].high
    assert points[-1].at == ratings["updated_at"].max()


def test_a_drifting_rater_is_seen_while_the_study_runs():
    step, points = agreement_over_time(study(), every=36)
    before = next(p for p in points if p.ratings == 180)  # item 60: cy still careful
    assert before.vs_rest["cy"] > 0.9
    assert points[-1].vs_rest["cy"] < before.vs_rest["cy"] - 0.2
    assert points[-1].vs_rest["ax"] > 0.8  # the others stay where they were
    assert points[-1].alpha < before.alpha


def test_order_is_the_order_given_and_the_excluded_and_skipped_do_not_count():
    ratings = study().sample(frac=1.0, random_state=1)  # rows in any order
    ratings["skipped"] = False
    skipped = ratings.iloc[:5].assign(score=np.nan, skipped=True, annotator="dee")
    mixed = pd.concat([ratings, skipped])
    _, points = agreement_over_time(mixed, every=36, excluded=("cy",))
    assert set(points[-1].vs_rest) == {"ax", "bo"}
    _, reference = agreement_over_time(study()[lambda f: f.annotator != "cy"], every=36)
    assert [p.alpha for p in points][-1] == pytest.approx(reference[-1].alpha)


def test_n_is_a_round_number_giving_at_most_forty_points():
    assert [step_for(n) for n in (0, 5, 60, 1000, 12345, 200_000)] == [1, 1, 2, 25, 500,
                                                                          5000]


def test_the_xlsx_report_has_the_sheet(tmp_path):
    from simrate.cli import main
    from simrate.core.project import Project
    from simrate.gui.base.sample import ensure_sample_project

    path = ensure_sample_project(tmp_path)
    out = tmp_path / "gold.xlsx"
    assert main(["export", str(path), str(out), "--allow-unresolved"]) == 0
    sheet = load_workbook(out)[OVER_TIME_SHEET]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:5] == ("ratings", "last rating at", "alpha", "95% low", "95% high")
    assert rows[0][5:] == ("r ana vs rest", "r ben vs rest", "r chloe vs rest")
    last = next(row for row in reversed(rows) if row and isinstance(row[0], int))
    with Project.open(path) as project:
        assert last[0] == 60
        assert last[2] == pytest.approx(project.live.alpha(), abs=1e-9)
    assert sheet._charts  # the line chart beside the table


def test_the_drifting_rater_is_named():
    from simrate.core.agreement.reports.over_time import drifting

    _, points = agreement_over_time(study(), every=36)
    found = drifting(points)
    assert set(found) == {"cy"}
    best, latest = found["cy"]
    assert best > 0.9 and latest < best - 0.2
    _, steady = agreement_over_time(study(drift_from=10_000), every=36)
    assert drifting(steady) == {}


def test_the_xlsx_sheet_names_a_drifting_rater(tmp_path):
    from openpyxl import Workbook

    from simrate.services.exports.xlsx_agreement import write_over_time_sheet

    book = Workbook(write_only=True)
    write_over_time_sheet(book, study())
    out = tmp_path / "t.xlsx"
    book.save(out)
    texts = [row[0] for row in load_workbook(out)[OVER_TIME_SHEET].iter_rows(values_only=True)
             if row and isinstance(row[0], str)]
    assert any(t.startswith("cy is drifting: r vs rest fell from 0.9") for t in texts)
    assert not any(t.startswith(("ax is", "bo is")) for t in texts)


def test_a_new_raters_r_over_two_shared_items_is_not_a_point():
    """Over two shared items r is +1 or -1 whatever the scores: never a point of the chart
    (it stretched the axis to -1); nor over fewer than the one minimum overlap of every
    correlation shown (DEFAULT_MIN_OVERLAP, 10): from the tenth shared item on it is drawn."""
    pairs = [(0, "ax", 1), (0, "bo", 3), (1, "ax", 2), (1, "bo", 1)]  # r would be -1
    for i in range(2, 10):
        pairs += [(i, "ax", i % 5), (i, "bo", i % 5 + 0.5)]
    rows = [(f"i{i}", rater, float(score), float(t))
            for t, (i, rater, score) in enumerate(pairs)]
    ratings = pd.DataFrame(rows, columns=["item_id", "annotator", "score", "updated_at"])
    _step, points = agreement_over_time(ratings, every=2)
    by_ratings = {p.ratings: p.vs_rest for p in points}
    assert by_ratings[4] == {"ax": None, "bo": None}
    assert by_ratings[6] == {"ax": None, "bo": None}  # three items: r, but on too few
    assert by_ratings[20]["ax"] is not None and by_ratings[20]["ax"] > 0  # ten items: drawn
