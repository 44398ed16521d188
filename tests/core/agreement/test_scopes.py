"""The dashboard's per-scope agreement engine against the core's batch alpha."""

from __future__ import annotations

import numpy as np
import pytest

from simrate.core.agreement.batch import LEVELS, alpha
from simrate.core.agreement.intervals import alpha_ci
from simrate.core.agreement.scopes import (
    ALL,
    MISSING,
    OVERALL,
    UNADJUDICATED,
    AlphaSums,
    ScopedAgreement,
    Snapshot,
    scope_intervals,
    scope_ratings,
)
from simrate.core.agreement.snapshot import SparseCodes, read_snapshot
from simrate.core.project import Project
from simrate.core.review.index import ReviewIndex
from tests.core.frames import make_items, make_ratings


def batch_alpha(codes: np.ndarray, level: str, low: float = 0.0, step: float = 0.25):
    """The core's batch alpha of an items x raters code array."""
    data = np.where(codes == MISSING, np.nan, low + codes * step).T
    return alpha(data, level)


def random_codes(rng, items: int, raters: int, n_codes: int = 17) -> np.ndarray:
    codes = rng.integers(0, n_codes, size=(items, raters)).astype(np.int16)
    codes[rng.random((items, raters)) < 0.3] = MISSING
    return codes


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_sums_in_bulk_equal_the_batch_alpha(level):
    rng = np.random.default_rng(3)
    codes = random_codes(rng, 300, 4)
    sums = AlphaSums(17, 0.0, 0.25)
    sums.add_rows(codes)
    assert sums.alpha(level) == pytest.approx(batch_alpha(codes, level), abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_sums_follow_unit_updates(level):
    rng = np.random.default_rng(5)
    codes = random_codes(rng, 120, 3)
    sums = AlphaSums(17, 0.0, 0.25)
    sums.add_rows(codes)
    for _ in range(200):  # change one rating at a time, as ratings arrive
        row, col = int(rng.integers(120)), int(rng.integers(3))
        old = [int(c) for c in codes[row] if c != MISSING]
        codes[row, col] = MISSING if rng.random() < 0.2 else int(rng.integers(17))
        sums.update(old, -1)
        sums.update([int(c) for c in codes[row] if c != MISSING], 1)
    assert sums.alpha(level) == pytest.approx(batch_alpha(codes, level), abs=1e-12)
    present = (codes != MISSING).sum(axis=1)
    assert sums.units == int((present > 0).sum())
    assert sums.pairable == int((present >= 2).sum())


def test_alpha_sums_undefined_without_pairs_or_variance():
    sums = AlphaSums(5, 0.0, 1.0)
    assert sums.alpha() is None
    sums.update([2], 1)
    assert sums.alpha() is None
    sums.update([3, 3], 1)
    sums.update([3, 3, 3], 1)
    assert sums.alpha("interval") is None and sums.alpha("nominal") is None


@pytest.fixture
def rated_project(tmp_path):
    """12 CLSS items in datasets alpha/beta, genres news/forum, three raters, some flags."""
    path = tmp_path / "org.simrate"
    rng = np.random.default_rng(11)
    rows = []
    for i in range(1, 13):
        base = int(rng.integers(0, 17))
        for rater in ("ann", "ben", "cat"):
            if rater == "cat" and i % 4 == 0:
                continue
            code = int(np.clip(base + rng.integers(-5, 6), 0, 16))
            rows.append((f"d:{i}", rater, code * 0.25))
    with Project.create(path, scale="clss") as project:
        project.import_items(make_items(12), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="r.tsv")
        flagged = sorted(project.flagged_ids())
        project.adjudicate(flagged[0], 2.0, note="checked", by="org")
    return path


def scope_codes(project: Project, grouping: str, group: str, subset: str) -> np.ndarray:
    """Items x raters codes of one scope, computed from scratch through the public API."""
    ratings = project.ratings()
    items = project.items()
    raters = project.annotators()
    index = ReviewIndex(project)
    keep = []
    for rec in items.itertuples():
        if grouping != OVERALL and getattr(rec, grouping) != group:
            continue
        if subset == UNADJUDICATED and not index.status(rec.item_id).unadjudicated:
            continue
        keep.append(rec.item_id)
    codes = np.full((len(keep), len(raters)), MISSING, dtype=np.int16)
    for rec in ratings.itertuples():
        if rec.item_id in keep:
            codes[keep.index(rec.item_id), raters.index(rec.annotator)] = int(rec.code)
    return codes


def test_engine_scopes_match_a_recomputation(rated_project):
    with Project.open(rated_project) as project:
        engine = ScopedAgreement(read_snapshot(project)[0])
        for grouping in ("dataset", "genre"):
            rows = engine.table(grouping, "interval")
            assert [r.group for r in rows] == [*engine.groups(grouping), OVERALL]
            for row in rows:
                key_grouping = row.grouping
                every = scope_codes(project, key_grouping, row.group, ALL)
                settled = scope_codes(project, key_grouping, row.group, UNADJUDICATED)
                assert row.alpha == pytest.approx(batch_alpha(every, "interval"), abs=1e-12)
                assert row.alpha_unadjudicated == pytest.approx(
                    batch_alpha(settled, "interval"), abs=1e-12)
        assert engine.alpha() == pytest.approx(project.live.alpha(), abs=1e-12)


def test_engine_follows_ratings_and_adjudications(rated_project):
    with Project.open(rated_project) as project:
        engine = project.agreement.scopes  # kept current by the project's write path
        edits = [("d:2", "ann", 4.0), ("d:3", "cat", 0.0), ("d:4", "cat", 1.5),
                 ("d:2", "ben", None), ("d:7", "dan", 3.0)]
        for item_id, rater, score in edits:
            project.rate(item_id, rater, score)
        flagged = sorted(project.flagged_ids())[0]
        project.adjudicate(flagged, 1.0)
        assert project.agreement.scopes is engine  # updated in place, never rebuilt
        fresh = ScopedAgreement(read_snapshot(project)[0])
        for level in LEVELS:
            for grouping in ("dataset", "genre"):
                assert engine.table(grouping, level) == fresh.table(grouping, level)
        assert engine.raters == fresh.raters
        assert np.array_equal(engine.histograms, fresh.histograms)
        assert engine.alpha("ordinal") == pytest.approx(project.live.alpha("ordinal"))


def test_histograms_count_each_raters_codes(rated_project):
    with Project.open(rated_project) as project:
        engine = ScopedAgreement(read_snapshot(project)[0])
        ratings = project.ratings()
    for i, rater in enumerate(engine.raters):
        own = ratings[ratings["annotator"] == rater]["code"].astype(int)
        expected = np.bincount(own, minlength=17)
        assert np.array_equal(engine.histograms[i], expected)


def test_intervals_contain_the_estimate(rated_project):
    with Project.open(rated_project) as project:
        snapshot = read_snapshot(project)[0]
    engine = ScopedAgreement(snapshot)
    keys = [(OVERALL, OVERALL, ALL), ("dataset", "alpha", ALL)]
    intervals = scope_intervals(snapshot.copy(), "interval", keys, replicates=300)
    for key in keys:
        low, high = intervals[key]
        assert low <= engine.scopes[key].alpha("interval") <= high


def crowd_snapshot(items: int = 600, raters: int = 40, seed: int = 4) -> Snapshot:
    """Many raters, a few ratings per item (some items one or none), two groupings."""
    rng = np.random.default_rng(seed)
    codes = np.full((items, raters), MISSING, dtype=np.int16)
    truth = rng.integers(2, 15, items)
    for row in range(items):
        chosen = rng.choice(raters, int(rng.integers(0, 6)), replace=False)
        codes[row, chosen] = np.clip(truth[row] + rng.integers(-3, 4, chosen.size), 0, 16)
    groups = {"dataset": rng.integers(0, 3, items).astype(np.int32),
              "genre": rng.integers(0, 2, items).astype(np.int32)}
    return Snapshot([f"i{i}" for i in range(items)],
                    {"dataset": ["a", "b", "c"], "genre": ["news", "forum"]}, groups,
                    [f"r{j}" for j in range(raters)], SparseCodes.from_dense(codes),
                    rng.random(items) < 0.7, [],
                    17, 0.0, 0.25)


def dense_scope_interval(snapshot: Snapshot, key, level: str, seed: int):
    """The interval of one scope on its raters x items matrix (how the job used to work)."""
    dense = snapshot.codes.dense()
    values = np.where(dense == MISSING, np.nan, snapshot.low + dense * snapshot.step).T
    grouping, group, subset = key
    chosen = np.ones(values.shape[1], dtype=bool)
    if grouping != OVERALL:
        chosen &= snapshot.group_codes[grouping] == snapshot.group_names[grouping].index(group)
    if subset == UNADJUDICATED:
        chosen &= snapshot.unadjudicated
    return alpha_ci(values[:, chosen], level, replicates=200, seed=seed)


@pytest.mark.parametrize("level", LEVELS)
def test_long_form_intervals_equal_the_dense_matrix_path(level):
    snapshot = crowd_snapshot()
    keys = list(ScopedAgreement(snapshot).scopes)
    ours = scope_intervals(snapshot, level, keys, replicates=200, seed=3)
    assert list(ours) == keys
    for key in keys:
        assert ours[key] == dense_scope_interval(snapshot, key, level, seed=3)


def test_scope_intervals_are_fixed_by_the_seed():
    snapshot = crowd_snapshot(seed=9)
    keys = [(OVERALL, OVERALL, ALL), ("dataset", "b", UNADJUDICATED)]
    ratings = scope_ratings(snapshot)
    first = scope_intervals(ratings, "interval", keys, replicates=300, seed=5)
    assert first == scope_intervals(ratings, "interval", keys, replicates=300, seed=5)
    assert first != scope_intervals(ratings, "interval", keys, replicates=300, seed=6)
    low, high = first[(OVERALL, OVERALL, ALL)]
    assert low < ScopedAgreement(snapshot).alpha("interval") < high


def test_scope_ratings_list_every_rating_and_copy_the_labels():
    snapshot = crowd_snapshot(items=50, raters=7)
    dense = snapshot.codes.dense()
    ratings = scope_ratings(snapshot)
    rows, columns = np.nonzero(dense != MISSING)
    assert np.array_equal(ratings.item, rows) and np.array_equal(ratings.rater, columns)
    assert np.array_equal(ratings.code, dense[rows, columns])
    snapshot.unadjudicated[:] = False  # the engine changes on: the job's copy does not
    assert ratings.unadjudicated.any()


def test_scope_without_pairable_items_has_no_interval():
    snapshot = crowd_snapshot(items=30, raters=5)
    dense = snapshot.codes.dense()
    dense[:, 1:] = MISSING  # one rater left
    snapshot.codes = SparseCodes.from_dense(dense)
    out = scope_intervals(snapshot, "interval", [(OVERALL, OVERALL, ALL)])
    assert out == {(OVERALL, OVERALL, ALL): None}


def test_sparse_codes_follow_every_edit_as_a_dense_table_would():
    rng = np.random.default_rng(11)
    dense = random_codes(rng, 80, 6)
    sparse = SparseCodes.from_dense(dense)
    kept = sparse.copy()
    for _ in range(400):
        row, column = int(rng.integers(80)), int(rng.integers(6))
        code = None if rng.random() < 0.3 else int(rng.integers(17))
        assert sparse.set(row, column, code) == dense[row, column]
        dense[row, column] = MISSING if code is None else code
        if rng.random() < 0.1:
            assert sparse.row(row) == {c: int(v) for c, v in enumerate(dense[row])
                                       if v != MISSING}
    assert np.array_equal(sparse.dense(), dense)
    long = sparse.long()
    rows, columns = np.nonzero(dense != MISSING)  # row-major order, as the engine reads it
    assert np.array_equal(long.rows, rows) and np.array_equal(long.columns, columns)
    assert np.array_equal(long.codes, dense[rows, columns])
    assert not np.array_equal(kept.dense(), dense)  # the copy did not change with it
    assert sparse.add_column() == 6 and sparse.shape == (80, 7)
    sparse.set(3, 6, 9)
    assert sparse.row(3)[6] == 9 and sparse.dense()[3, 6] == 9


def test_scope_engine_after_edits_equals_one_built_from_the_edited_table():
    rng = np.random.default_rng(5)
    snapshot = crowd_snapshot(items=120, raters=9, seed=2)
    engine = ScopedAgreement(snapshot)
    for _ in range(150):
        row = int(rng.integers(120))
        changes = {f"r{int(rng.integers(11))}": None if rng.random() < 0.3
                   else int(rng.integers(17))}  # r9, r10: raters new to the engine
        engine.update_item(row, changes, bool(rng.random() < 0.7))
    fresh = ScopedAgreement(Snapshot(
        snapshot.item_ids, snapshot.group_names, snapshot.group_codes, list(engine.raters),
        SparseCodes.from_dense(snapshot.codes.dense()), snapshot.unadjudicated.copy(), [],
        17, 0.0, 0.25))
    assert set(engine.raters[9:]) == {"r9", "r10"}
    for key, sums in engine.scopes.items():
        for level in LEVELS:
            assert sums.alpha(level) == pytest.approx(fresh.scopes[key].alpha(level), abs=1e-12)
    assert np.array_equal(engine.histograms, fresh.histograms)
