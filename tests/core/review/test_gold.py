"""Gold scores: adjudicated, else mean; sources; sd convention; excluded annotators."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pandas as pd
import pytest

from simrate.core.base.frames import GOLD_COLUMNS, item_frame, rating_frame
from simrate.core.base.scale import load_scale
from simrate.core.project import Project
from simrate.core.review.gold import compute_gold, flagged_list, unresolved_counts

CLSS = load_scale("clss")


def items_of(ids: list[str]) -> pd.DataFrame:
    """A minimal items frame in the given order."""
    n = len(ids)
    return pd.DataFrame({"item_id": ids, "dataset": ["d"] * n, "genre": [""] * n,
                         "left": [f"L{i}" for i in ids], "right": [f"R{i}" for i in ids]})


def ratings_of(rows: list[tuple[str, str, float | None]]) -> pd.DataFrame:
    """A ratings frame from (item_id, annotator, score) rows."""
    return pd.DataFrame({"item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
                         "score": [np.nan if r[2] is None else r[2] for r in rows]})


def adjudications_of(rows: list[tuple[str, float, str]]) -> pd.DataFrame:
    """An adjudications frame from (item_id, score, note) rows."""
    return pd.DataFrame({"item_id": [r[0] for r in rows], "score": [r[1] for r in rows],
                         "note": [r[2] for r in rows]})


def test_sources_and_statistics():
    items = items_of(["a", "b", "c", "d", "e"])
    ratings = ratings_of([
        ("a", "ann", 1.0), ("a", "bob", 2.0), ("a", "cy", 2.0),   # mean 5/3
        ("b", "ann", 3.25),                                        # single
        ("c", "ann", 0.0), ("c", "bob", 4.0),                      # adjudicated
        ("e", "bob", None),                                        # skipped: no rating
    ])
    adjudications = adjudications_of([("c", 1.5, "bob misread it")])
    gold = compute_gold(items, ratings, adjudications, CLSS).set_index("item_id")
    assert gold.loc["a", "gold"] == statistics.fmean([1.0, 2.0, 2.0])
    # the population sd (ddof=0), as STS and USTS publish it
    assert gold.loc["a", "sd"] == pytest.approx(statistics.pstdev([1.0, 2.0, 2.0]))
    assert gold.loc["a", "source"] == "mean"
    assert (gold.loc["b", "source"], gold.loc["b", "gold"]) == ("single", 3.25)
    assert gold.loc["b", "sd"] == 0.0  # one rating: no spread around itself
    assert (gold.loc["c", "source"], gold.loc["c", "gold"]) == ("adjudicated", 1.5)
    assert gold.loc["c", "mean"] == 2.0 and gold.loc["c", "note"] == "bob misread it"
    assert bool(gold.loc["c", "adjudicated"]) and not bool(gold.loc["c", "flagged"])
    for unrated in ("d", "e"):
        assert gold.loc[unrated, "source"] == "" and math.isnan(gold.loc[unrated, "gold"])
        assert gold.loc[unrated, "n_ratings"] == 0
    assert bool(gold.loc["a", "flagged"])  # spread 1.0 reaches the default threshold
    assert unresolved_counts(gold) == {"flagged": 1, "unrated": 2}


def test_columns_and_order():
    items = items_of(["z", "y", "x"])
    ratings = ratings_of([("x", "bob", 1.0), ("z", "ann", 2.0)])
    gold = compute_gold(items, ratings, adjudications_of([]), CLSS, annotators=["ann", "bob"])
    assert list(gold.columns) == GOLD_COLUMNS + ["rating:ann", "rating:bob"]
    assert list(gold["item_id"]) == ["z", "y", "x"]
    assert gold["rating:bob"].tolist()[2] == 1.0 and math.isnan(gold["rating:bob"][0])


def test_excluded_annotator_does_not_count():
    items = items_of(["a", "b"])
    ratings = ratings_of([("a", "ann", 1.0), ("a", "bad", 4.0), ("b", "bad", 2.0),
                          ("a", "bob", 1.5)])
    gold = compute_gold(items, ratings, adjudications_of([]), CLSS, excluded=["bad"])
    assert "rating:bad" not in gold.columns
    row = gold.set_index("item_id").loc["a"]
    assert (row["n_ratings"], row["gold"], row["max"]) == (2, 1.25, 1.5)
    assert not row["flagged"]  # bad's 4.0 would have made a spread of 3 points
    assert gold.set_index("item_id").loc["b", "source"] == ""


@pytest.mark.parametrize("threshold, spread, flagged", [
    (1.0, 1.0, True), (1.0, 0.75, False), (0.3, 0.25, False), (0.3, 0.5, True),
    (2.0, 2.0, True), (2.0, 1.75, False),
])
def test_flag_threshold_is_at_least(threshold, spread, flagged):
    items = items_of(["a"])
    ratings = ratings_of([("a", "ann", 1.0), ("a", "bob", 1.0 + spread)])
    gold = compute_gold(items, ratings, adjudications_of([]), CLSS, threshold=threshold)
    assert bool(gold["flagged"][0]) is flagged


def test_flagged_list_largest_spread_first_then_project_order():
    items = items_of(["p", "q", "r", "s"])
    ratings = ratings_of([
        ("p", "a", 1.0), ("p", "b", 2.0),
        ("q", "a", 0.0), ("q", "b", 3.0),
        ("r", "a", 1.0), ("r", "b", 1.25),
        ("s", "a", 2.0), ("s", "b", 3.0), ("s", "c", 2.5),
    ])
    listing = flagged_list(compute_gold(items, ratings, adjudications_of([]), CLSS))
    assert listing["item_id"].tolist() == ["q", "p", "s"]
    assert listing["spread"].tolist() == [3.0, 1.0, 1.0]
    assert listing["ratings"].tolist()[2] == {"a": 2.0, "b": 3.0, "c": 2.5}


def test_random_projects_match_a_plain_python_reference():
    rng = random.Random(7)
    ids = [f"i{k}" for k in range(300)]
    names = ["a", "b", "c", "d"]
    rows, adjudicated = [], []
    for item in ids:
        for name in names:
            if rng.random() < 0.6:
                rows.append((item, name, rng.randrange(17) * 0.25))
        if rng.random() < 0.1:
            adjudicated.append((item, rng.randrange(17) * 0.25, "n"))
    gold = compute_gold(items_of(ids), ratings_of(rows), adjudications_of(adjudicated), CLSS,
                        threshold=1.5).set_index("item_id")
    verdicts = {item: score for item, score, _ in adjudicated}
    for item in ids:
        scores = [s for i, _, s in rows if i == item]
        row = gold.loc[item]
        assert row["n_ratings"] == len(scores)
        if scores:
            assert row["mean"] == pytest.approx(statistics.fmean(scores), abs=1e-12)
            assert (row["min"], row["max"]) == (min(scores), max(scores))
        if len(scores) > 1:
            assert row["sd"] == pytest.approx(statistics.pstdev(scores), abs=1e-12)
        expected_flag = (len(scores) >= 2 and max(scores) - min(scores) >= 1.5
                         and item not in verdicts)
        assert bool(row["flagged"]) is expected_flag
        expected_gold = verdicts.get(item, statistics.fmean(scores) if scores else None)
        if expected_gold is None:
            assert math.isnan(row["gold"])
        else:
            assert row["gold"] == pytest.approx(expected_gold, abs=1e-12)


def test_project_gold_uses_threshold_exclusion_and_adjudication(tmp_path):
    with Project.create(tmp_path / "p.simrate", scale="sts") as project:
        project.import_items(item_frame({
            "item_id": ["s:1", "s:2", "s:3"], "left": ["a", "b", "c"],
            "right": ["x", "y", "z"], "dataset": ["s"] * 3, "genre": [""] * 3,
            "reference": [float("nan")] * 3, "meta": [{}] * 3, "line": [1, 2, 3],
        }), source="i.tsv")
        project.import_ratings(rating_frame({
            "item_id": ["s:1", "s:1", "s:2", "s:2", "s:3"],
            "annotator": ["ann", "bob", "ann", "bob", "cy"],
            "score": [1.0, 3.0, 4.0, 4.5, 5.0], "note": [""] * 5, "line": [2, 3, 4, 5, 6],
        }), source="r.tsv")
        gold = project.gold().set_index("item_id")
        assert bool(gold.loc["s:1", "flagged"]) and not bool(gold.loc["s:2", "flagged"])
        project.set_threshold(2.5)
        assert not bool(project.gold().set_index("item_id").loc["s:1", "flagged"])
        project.adjudicate("s:1", 2.0, note="split the difference", by="lead")
        project.set_excluded("cy")
        gold = project.gold().set_index("item_id")
        assert (gold.loc["s:1", "gold"], gold.loc["s:1", "source"]) == (2.0, "adjudicated")
        assert gold.loc["s:3", "source"] == "" and "rating:cy" not in gold.columns
        assert [c for c in gold.columns if c.startswith("rating:")] == ["rating:ann",
                                                                          "rating:bob"]


def test_gold_of_a_hand_edited_file_with_gaps_in_item_order(tmp_path):
    import sqlite3

    path = tmp_path / "p.simrate"
    with Project.create(path, scale="clss") as project:
        project.import_items(item_frame({
            "item_id": ["a", "b", "c"], "left": ["1", "2", "3"], "right": ["x", "y", "z"],
            "dataset": ["d"] * 3, "genre": [""] * 3, "reference": [float("nan")] * 3,
            "meta": [{}] * 3, "line": [1, 2, 3],
        }), source="i.tsv")
        for item, score in (("a", 1.0), ("b", 2.0), ("c", 4.0)):
            project.rate(item, "ann", score)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    with conn:  # ords 0,1,2 -> 7,5,3: the order of the items is reversed
        conn.execute("UPDATE items SET ord = 7 - 2 * ord")
        conn.execute("UPDATE ratings SET item_ord = 7 - 2 * item_ord")
    conn.close()
    with Project.open(path) as project:
        gold = project.gold()
        assert gold["item_id"].tolist() == ["c", "b", "a"]
        assert gold["gold"].tolist() == [4.0, 2.0, 1.0]


def test_second_look_from_tables_matches_the_live_index(tmp_path):
    from simrate.core.review.gold import second_look_items

    rng = random.Random(5)
    with Project.create(tmp_path / "p.simrate", scale="clss") as project:
        ids = [f"s:{i}" for i in range(1, 21)]
        project.import_items(item_frame({
            "item_id": ids, "left": ids, "right": ids, "dataset": ["s"] * 20,
            "genre": [""] * 20, "reference": [float("nan")] * 20, "meta": [{}] * 20,
            "line": list(range(1, 21)),
        }), source="i.tsv")
        project.flagged_ids()  # build the live index before the changes
        for _ in range(300):
            item = rng.choice(ids)
            if rng.random() < 0.15:
                project.adjudicate(item, rng.randrange(17) * 0.25, by="lead")
            else:
                value = None if rng.random() < 0.1 else rng.randrange(17) * 0.25
                project.rate(item, rng.choice(["a", "b", "c"]), value)
        live = project.second_look_ids()
        table = set(second_look_items(project.ratings(), project.adjudications(),
                                      project.scale, project.threshold))
        assert live == table and live  # and the walk did produce some
