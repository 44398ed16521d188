"""The disagreement rule, adjudications and second looks, through FlagIndex and Project."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.base.scale import threshold_codes
from simrate.core.project import Project
from simrate.core.review.flags import FlagIndex


class NoScanDict(dict):
    """A dict that fails on any whole-dict traversal, to prove updates touch one item only."""

    def _refuse(self, *args, **kwargs):
        raise AssertionError("scanned every item")

    __iter__ = keys = values = items = _refuse  # type: ignore[assignment]


def make_items(n: int) -> pd.DataFrame:
    """n items with ids d:1..d:n."""
    return item_frame({
        "item_id": [f"d:{i}" for i in range(1, n + 1)],
        "left": [f"left {i}" for i in range(1, n + 1)],
        "right": [f"right {i}" for i in range(1, n + 1)],
        "dataset": ["d"] * n, "genre": [""] * n, "reference": [float("nan")] * n,
        "meta": [{}] * n, "line": list(range(1, n + 1)),
    })


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.simrate", scale="clss")
    p.import_items(make_items(6), source="items.tsv")
    yield p
    p.close()


# ------------------------------------------------------------------ FlagIndex alone
@pytest.mark.parametrize("points, step, codes", [
    (1.0, 0.25, 4), (0.3, 0.25, 2), (0.25, 0.25, 1), (0.1, 0.25, 1), (0.3, 0.1, 3),
    (1.5, 0.5, 3),
])
def test_threshold_codes_is_the_smallest_spread_reaching_it(points, step, codes):
    assert threshold_codes(points, step) == codes
    assert codes * step >= points - 1e-9
    assert codes == 1 or (codes - 1) * step < points - 1e-9


def test_flag_index_follows_each_change():
    flags = FlagIndex(threshold_codes=4)
    flags.set(1, 10, 0)
    assert flags.flagged == {}  # one rating cannot disagree
    flags.set(1, 11, 3)
    assert flags.flagged == {}
    flags.set(1, 12, 4)
    assert flags.flagged == {1: 4}
    flags.set(1, 12, None)
    assert flags.flagged == {}
    flags.set(1, 11, 8)
    flags.set(2, 10, 16)
    flags.set(2, 11, 0)
    assert flags.ordered() == [(2, 16), (1, 8)]
    flags.set_adjudicated(2, 8)
    assert flags.ordered() == [(1, 8)]
    flags.set_adjudicated(2, None)
    assert flags.ordered() == [(2, 16), (1, 8)]


def test_updates_do_not_scan_all_items():
    flags = FlagIndex(threshold_codes=4)
    rows = [(item, rater, (item * rater) % 17, 0.0) for item in range(50_000) for rater in (1, 2)]
    flags.load(rows, {})
    before = dict(flags.flagged)
    flags._units = NoScanDict(flags._units)
    flags.flagged = NoScanDict(flags.flagged)
    flags.set(7, 1, 0)
    flags.set(7, 2, 16)
    flags.set(7, 3, None)
    flags.set_adjudicated(8, 4)
    flags.set_adjudicated(8, None)
    assert dict.__getitem__(flags.flagged, 7) == 16
    assert dict.__len__(flags.flagged) == len(before) + (0 if 7 in before else 1)


# ------------------------------------------------------------------ through Project
def test_flags_follow_ratings_without_scanning(project):
    project.rate("d:1", "ann", 1.0)
    project.rate("d:1", "bob", 1.75)
    assert project.flagged_ids() == set()
    project.flags._units = NoScanDict(project.flags._units)
    project.rate("d:1", "bob", 2.0)  # spread reaches 1.0
    assert project.flagged_ids() == {"d:1"}
    project.rate("d:1", "ann", None)
    assert project.flagged_ids() == set()


def test_flagged_in_order_of_disagreement(project):
    for item, scores in {"d:1": (1, 2), "d:2": (0, 4), "d:3": (2, 2.5), "d:4": (3, 1.5),
                         "d:5": (1, 2.25)}.items():
        project.rate(item, "ann", scores[0])
        project.rate(item, "bob", scores[1])
    listing = project.flagged()
    assert listing["item_id"].tolist() == ["d:2", "d:4", "d:5", "d:1"]
    assert listing["spread"].tolist() == [4.0, 1.5, 1.25, 1.0]
    assert listing["ratings"].tolist()[1] == {"ann": 3.0, "bob": 1.5}


def test_project_threshold_changes_flags(project):
    project.rate("d:1", "ann", 1.0)
    project.rate("d:1", "bob", 2.5)
    assert project.flagged_ids() == {"d:1"}
    project.set_threshold(2.0)
    assert project.flagged_ids() == set()
    project.set_threshold(0.3)
    project.rate("d:2", "ann", 1.0)
    project.rate("d:2", "bob", 1.25)  # 0.25 < 0.3
    assert project.flagged_ids() == {"d:1"}


def test_excluded_annotator_does_not_flag(project):
    project.rate("d:1", "ann", 1.0)
    project.rate("d:1", "spam", 4.0)
    assert project.flagged_ids() == {"d:1"}
    project.set_excluded("spam")
    assert project.flagged_ids() == set()
    project.rate("d:1", "spam", 0.0)
    assert project.flagged_ids() == set()


def test_adjudicate_revise_withdraw_are_logged(project):
    project.rate("d:1", "ann", 0.0)
    project.rate("d:1", "bob", 3.0)
    project.adjudicate("d:1", 2.5, note="bob missed the negation", by="lead")
    assert project.flagged_ids() == set()
    record = project.adjudications().set_index("item_id").loc["d:1"]
    assert (record["score"], record["note"], record["by"]) == (2.5, "bob missed the negation",
                                                              "lead")
    assert record["at"] > 0
    project.adjudicate("d:1", 2.0, note="on reflection", by="chair")
    project.adjudicate("d:1", None, by="chair")
    assert project.flagged_ids() == {"d:1"} and len(project.adjudications()) == 0
    log = project.changes().query("kind == 'adjudication'")
    assert log["who"].tolist() == ["lead", "chair", "chair"]
    assert log["old"].tolist()[0]["score"] is None
    assert log["new"].tolist()[0] == {"score": 2.5, "note": "bob missed the negation"}
    assert log["old"].tolist()[1] == {"score": 2.5, "note": "bob missed the negation"}
    assert log["new"].tolist()[1] == {"score": 2.0, "note": "on reflection"}
    assert log["old"].tolist()[2]["score"] == 2.0 and log["new"].tolist()[2]["score"] is None


def test_second_look_after_late_disagreeing_rating(project):
    project.rate("d:1", "ann", 1.0)
    project.rate("d:1", "bob", 3.0)
    project.adjudicate("d:1", 1.5, by="lead")
    assert project.second_look_ids() == set()
    project.rate("d:1", "cy", 2.25)  # 0.75 from the verdict: fine
    assert project.second_look_ids() == set()
    project.rate("d:1", "dee", 3.5)  # 2 points away
    assert project.second_look_ids() == {"d:1"}
    assert project.flagged_ids() == set()  # still adjudicated, not flagged again
    project.rate("d:1", "dee", 2.0)  # dee changes her mind
    assert project.second_look_ids() == set()
    project.rate("d:1", "dee", 0.0)
    assert project.second_look_ids() == {"d:1"}
    project.adjudicate("d:1", 0.5, note="looked again", by="lead")
    assert project.second_look_ids() == set()


def test_second_look_survives_reopening(tmp_path, project):
    project.rate("d:2", "ann", 0.0)
    project.rate("d:2", "bob", 4.0)
    project.adjudicate("d:2", 1.0, by="lead")
    project.rate("d:2", "cy", 4.0)
    path = project.path
    project.close()
    with Project.open(path) as reopened:
        assert reopened.second_look_ids() == {"d:2"}
        assert reopened.flagged_ids() == set()


def test_ratings_imported_before_the_verdict_are_no_second_look(tmp_path, project):
    project.import_ratings(rating_frame({
        "item_id": ["d:3", "d:3"], "annotator": ["ann", "bob"], "score": [0.0, 4.0],
        "note": ["", ""], "line": [2, 3],
    }), source="r.tsv")
    project.adjudicate("d:3", 2.0, by="lead")
    path = project.path
    project.close()
    with Project.open(path) as reopened:
        assert reopened.second_look_ids() == set()


@pytest.mark.parametrize("item, value, words", [
    ("nope:1", 2.0, "no item"),
    ("d:1", 2.1, "not on the grid"),
    ("d:1", 4.25, "outside"),
    ("d:1", -0.25, "outside"),
])
def test_bad_adjudications_are_refused(project, item, value, words):
    with pytest.raises(SimrateError, match=words):
        project.adjudicate(item, value, by="lead")
    assert len(project.adjudications()) == 0
    assert len(project.changes().query("kind == 'adjudication'")) == 0


def test_withdrawing_nothing_is_refused(project):
    with pytest.raises(SimrateError, match="no adjudication"):
        project.adjudicate("d:1", None)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 4), st.integers(0, 16),
                          st.booleans()), max_size=40),
       st.dictionaries(st.integers(0, 6), st.integers(0, 16), max_size=4),
       st.integers(1, 8))
def test_columnar_load_equals_replaying_every_change(ratings, adjudicated, k):
    """Loading the saved state at once gives the flags that replaying the history gives:
    scores saved before the adjudication, then the adjudications, then later scores."""
    latest = {(item, rater): (code, late) for item, rater, code, late in ratings}
    replayed = FlagIndex(k)
    for (item, rater), (code, late) in latest.items():
        if not (late and item in adjudicated):
            replayed.set(item, rater, code)
    for item, code in adjudicated.items():
        replayed.set_adjudicated(item, code)
    for (item, rater), (code, late) in latest.items():
        if late and item in adjudicated:
            replayed.set(item, rater, code)
    loaded = FlagIndex(k)
    loaded.load([(item, rater, code, 2.0 if late else 0.0)
                 for (item, rater), (code, late) in latest.items()],
                {item: (code, 1.0) for item, code in adjudicated.items()})
    assert loaded.flagged == replayed.flagged
    assert loaded.second_look == replayed.second_look
    for item in range(7):
        assert loaded.unit(item) == replayed.unit(item)
        assert loaded.spread(item) == replayed.spread(item)
