"""Reports from a long ratings frame: figures, groups, subsets (Table 4), disagreement order."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest

from simrate.core.agreement.reports.report import (
    agreement_report,
    alpha_table,
    item_disagreement,
    ratings_matrix,
    summarize,
)
from simrate.core.base.errors import SimrateError

pytestmark = pytest.mark.filterwarnings("error")


def _frame(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "annotator", "score"])


def _project_like(seed: int = 0, items: int = 120) -> tuple[pd.DataFrame, dict[str, str]]:
    """Three annotators on 0-4 quarter steps, two datasets, some big disagreements."""
    rng = np.random.default_rng(seed)
    rows, group_of = [], {}
    for i in range(items):
        item = f"{'p2s' if i % 2 else 's2p'}:{i}"
        group_of[item] = item.split(":")[0]
        truth = rng.integers(0, 17)
        for who in ("ann1", "ann2", "ann3"):
            if rng.random() < 0.1:
                continue
            jump = 8 if rng.random() < 0.08 else rng.integers(-1, 2)
            rows.append((item, who, float(np.clip(truth + jump, 0, 16)) * 0.25))
    return _frame(rows), group_of


def _reference_alpha(frame: pd.DataFrame, items) -> float:
    wide = frame[frame["item_id"].isin(items)].pivot(index="annotator", columns="item_id",
                                                     values="score")
    return krippendorff.alpha(wide.to_numpy(float), level_of_measurement="interval")


def test_ratings_matrix_pivots_and_keeps_unrated_items():
    frame = _frame([("i1", "a", 1.0), ("i2", "b", 2.0), ("i1", "b", 3.0)])
    matrix = ratings_matrix(frame, items=["i0", "i1", "i2"], raters=["a", "b"])
    assert matrix.items == ["i0", "i1", "i2"] and matrix.raters == ["a", "b"]
    np.testing.assert_array_equal(matrix.values, [[np.nan, 1, np.nan], [np.nan, 3, 2]])
    with pytest.raises(SimrateError, match="twice"):
        ratings_matrix(_frame([("i1", "a", 1.0), ("i1", "a", 2.0)]))


def test_summary_has_the_json_keys_and_reference_values():
    frame, _ = _project_like()
    matrix = ratings_matrix(frame)
    report = summarize(matrix, ["interval", "nominal"], ci=True)
    out = report.to_json()
    assert set(out) == {"items", "pairable_items", "annotators", "alpha", "ci95", "pearson",
                        "pearson_vs_rest", "gold_reliability", "raters_needed", "min_overlap"}
    # Spearman-Brown at the mean ratings per item, its interval mapped from alpha's
    a, k = out["alpha"]["interval"], out["gold_reliability"]["raters_per_item"]
    # (k is printed to 4 decimals)
    assert out["gold_reliability"]["value"] == pytest.approx(k * a / (1 + (k - 1) * a), abs=1e-5)
    low_r, high_r = out["gold_reliability"]["ci"]
    assert low_r == pytest.approx(k * out["ci95"]["interval"][0]
                                  / (1 + (k - 1) * out["ci95"]["interval"][0]), abs=1e-5)
    assert low_r < out["gold_reliability"]["value"] < high_r
    assert out["raters_needed"]["0.8"] == math.ceil(0.8 * (1 - a) / (a * 0.2) - 1e-9)
    assert out["items"] == 120 and sorted(out["annotators"]) == ["ann1", "ann2", "ann3"]
    assert out["alpha"]["interval"] == pytest.approx(_reference_alpha(frame, matrix.items))
    low, high = out["ci95"]["interval"]
    assert low < out["alpha"]["interval"] < high
    assert set(out["pearson"]["ann1"]) == {"ann1", "ann2", "ann3"}


def test_groups_and_unadjudicated_subset():
    frame, group_of = _project_like(seed=1)
    matrix = ratings_matrix(frame)
    spread = frame.groupby("item_id")["score"].agg(lambda s: s.max() - s.min())
    calm = set(spread.index[spread < 1.0])
    out = agreement_report(matrix, ["interval"], group_of, subset=calm).to_json()
    assert out["alpha_unadjudicated"]["interval"] == pytest.approx(
        _reference_alpha(frame, calm))
    assert out["alpha_unadjudicated"]["interval"] > out["alpha"]["interval"]
    assert set(out["groups"]) == {"p2s", "s2p"}
    for name, group in out["groups"].items():
        members = [i for i, g in group_of.items() if g == name]
        assert group["items"] == len(members)
        assert group["alpha"]["interval"] == pytest.approx(_reference_alpha(frame, members))
        assert group["alpha_unadjudicated"]["interval"] == pytest.approx(
            _reference_alpha(frame, calm & set(members)))


def test_alpha_table_is_table_4_for_any_project():
    frame, group_of = _project_like(seed=2)
    spread = frame.groupby("item_id")["score"].agg(lambda s: s.max() - s.min())
    calm = set(spread.index[spread < 1.0])
    table = alpha_table(frame, group_of, calm)
    assert table["group"].tolist() == ["p2s", "s2p", "(all)"]
    p2s = [i for i, g in group_of.items() if g == "p2s"]
    row = table.iloc[0]
    assert row["items"] == len(p2s)
    assert row["alpha"] == pytest.approx(_reference_alpha(frame, p2s))
    assert row["alpha_subset"] == pytest.approx(_reference_alpha(frame, calm & set(p2s)))
    assert table.iloc[2]["alpha"] == pytest.approx(_reference_alpha(frame, group_of))


def test_alpha_table_counts_items_and_leaves_undefined_alphas_missing():
    frame = _frame([("x:1", "a", 1.0), ("x:1", "b", 3.0), ("x:2", "a", 2.0),
                    ("x:2", "b", 2.0), ("y:1", "a", 4.0), ("y:2", "b", 0.0)])
    group_of = {"x:1": "x", "x:2": "x", "y:1": "y", "y:2": "y"}
    table = alpha_table(frame, group_of, {"x:2", "y:1"}).set_index("group")
    assert table.index.tolist() == ["x", "y", "(all)"]
    assert table["items"].tolist() == [2, 2, 4]
    assert table["subset_items"].tolist() == [1, 1, 2]
    assert table.loc["x", "alpha"] == pytest.approx(_reference_alpha(frame, ["x:1", "x:2"]))
    assert table.loc["(all)", "alpha"] == pytest.approx(_reference_alpha(frame, group_of))
    assert pd.isna(table.loc["y", "alpha"])  # no item of y has two ratings
    assert pd.isna(table.loc["x", "alpha_subset"])  # x:2 alone: 2 and 2, no variance


def test_undefined_figures_carry_reasons():
    matrix = ratings_matrix(_frame([("i1", "a", 2.0), ("i2", "a", 3.0), ("i3", "b", 2.0)]))
    report = summarize(matrix, ["interval"], ci=True)
    assert report.figures["alpha"]["interval"] is None
    assert "pairable" in report.reasons[("alpha", "interval")]
    assert report.figures["ci95"]["interval"] is None
    assert report.figures["pearson"]["a"]["b"] is None
    assert report.reasons[("pearson", "a", "b")] == "no common items"


def test_item_disagreement_orders_the_adjudication_queue():
    frame = _frame([("calm", "a", 2.0), ("calm", "b", 2.0), ("mild", "a", 1.0),
                    ("mild", "b", 2.0), ("wild", "a", 0.0), ("wild", "b", 4.0),
                    ("alone", "a", 3.0)])
    queue = item_disagreement(frame)
    assert queue["item_id"].tolist()[:2] == ["wild", "mild"]
    assert queue["share"].sum() == pytest.approx(1.0)
    assert queue.set_index("item_id").loc["wild", "share"] == pytest.approx(16 / 17)
    assert queue.set_index("item_id").loc["wild", "spread"] == 4.0
