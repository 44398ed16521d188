"""LiveAgreement: after any sequence of edits it equals a full recomputation, at every level."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simrate.core.agreement import LiveAgreement, alpha, unit_disagreement
from simrate.core.agreement.correlation import pearson_matrix, pearson_vs_rest
from simrate.core.agreement.sums import disagreement_shares, unit_share

pytestmark = pytest.mark.filterwarnings("error")

LEVELS = ("interval", "ordinal", "nominal", "ratio")
QUARTER_CODES = list(range(21))  # 0-5 in steps of 0.25
FREE_VALUES = [0.1, 1 / 3, 2.5, -7.0, 1e-3, 123.456, 3.0, 2.0 ** -40]


def _answers(live: LiveAgreement) -> tuple:
    """Everything a LiveAgreement reports, for exact comparison (NaN made comparable)."""
    matrix, raters = live.pearson_matrix()
    order = sorted(range(len(raters)), key=lambda i: str(raters[i]))
    matrix = np.nan_to_num(matrix[np.ix_(order, order)], nan=-9.0)
    rest = live.pearson_vs_rest()
    return (tuple(live.alpha(level) for level in LEVELS), matrix.tobytes(),
            tuple(sorted((str(k), v if v is not None else -9.0) for k, v in rest.items())),
            live.n_units, live.n_pairable_units, live.n_ratings)


def _rebuild(live: LiveAgreement, reverse: bool = True) -> LiveAgreement:
    """A fresh LiveAgreement given the final ratings only, in another order."""
    fresh = LiveAgreement(live.low, live.step) if live.codes else LiveAgreement()
    cells = [(u, r, v) for u in live.units() for r, v in live.unit_ratings(u).items()]
    for unit, rater, value in (reversed(cells) if reverse else cells):
        fresh.set_rating(unit, rater, value)
    return fresh


def _check_against_batch(live: LiveAgreement) -> None:
    data, raters, _units = live.to_matrix()
    for level in LEVELS:
        ours, batch = live.alpha(level), alpha(data, level)
        if batch is None:
            assert ours is None
        else:
            assert ours == pytest.approx(batch, rel=1e-9, abs=1e-12)
            assert ours == pytest.approx(
                krippendorff.alpha(data, level_of_measurement=level), rel=1e-9, abs=1e-12)
    live_r, _ = live.pearson_matrix()
    np.testing.assert_allclose(live_r, pearson_matrix(data), rtol=1e-9, atol=1e-12)
    rest = live.pearson_vs_rest()
    np.testing.assert_allclose([np.nan if rest[r] is None else rest[r] for r in raters],
                               pearson_vs_rest(data), rtol=1e-9, atol=1e-12)


def _random_edits(live: LiveAgreement, rng: np.random.Generator, values: list, steps: int,
                  units: int = 25, raters: int = 4) -> None:
    for _ in range(steps):
        unit, rater = int(rng.integers(units)), f"r{rng.integers(raters)}"
        value = None if rng.random() < 0.25 else values[int(rng.integers(len(values)))]
        live.set_rating(unit, rater, value)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), steps=st.integers(1, 400))
def test_code_mode_after_random_edits_equals_recomputation(seed, steps):
    live = LiveAgreement(low=0.0, step=0.25)
    _random_edits(live, np.random.default_rng(seed), QUARTER_CODES, steps)
    assert _answers(live) == _answers(_rebuild(live))
    _check_against_batch_codes(live)


def _check_against_batch_codes(live: LiveAgreement) -> None:
    data, _, _ = live.to_matrix()  # real values low + code * step
    assert np.nanmax(data, initial=0) <= 5.0
    _check_against_batch(live)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), steps=st.integers(1, 300))
def test_free_mode_with_arbitrary_numbers_equals_recomputation(seed, steps):
    live = LiveAgreement()
    _random_edits(live, np.random.default_rng(seed), FREE_VALUES, steps, units=15, raters=3)
    assert _answers(live) == _answers(_rebuild(live))
    _check_against_batch(live)


def test_free_mode_rescales_when_finer_values_arrive():
    live = LiveAgreement()
    for unit, (a, b) in enumerate([(1, 2), (3, 3), (4, 1), (2, 2)]):
        live.set_rating(unit, "a", a)
        live.set_rating(unit, "b", b)
    before = live.alpha()
    live.set_rating(9, "a", 0.1)  # needs 2**-55 resolution: every stored sum is rescaled
    live.set_rating(9, "a", None)
    assert live.alpha() == before
    live.set_rating(0, "a", 1.5)
    _check_against_batch(live)


def test_ratio_level_uses_real_values_not_codes():
    live = LiveAgreement(low=1.0, step=0.5)
    codes = [[0, 2, 4, 6, 1], [1, 2, 5, 6, 0]]
    for rater, row in enumerate(codes):
        for unit, code in enumerate(row):
            live.set_rating(unit, rater, code)
    real = 1.0 + 0.5 * np.array(codes, float)
    assert live.alpha("ratio") == pytest.approx(alpha(real, "ratio"), abs=1e-12)
    assert live.alpha("ratio") != pytest.approx(alpha(np.array(codes, float), "ratio"))
    assert live.alpha("interval") == pytest.approx(alpha(real, "interval"), abs=1e-12)
    assert live.unit_ratings(0) == {0: 0, 1: 1}


def test_bulk_load_equals_one_call_per_rating():
    rng = np.random.default_rng(3)
    units = [f"item{u}" for u in rng.integers(0, 500, 1500)]
    raters = [f"ann{r}" for r in rng.integers(0, 5, 1500)]
    codes = rng.integers(0, 17, 1500)
    seen, keep = set(), []
    for i, key in enumerate(zip(units, raters, strict=True)):
        if key not in seen:
            seen.add(key)
            keep.append(i)
    units, raters, codes = ([units[i] for i in keep], [raters[i] for i in keep], codes[keep])
    loaded, looped = LiveAgreement(0.0, 0.25), LiveAgreement(0.0, 0.25)
    loaded.load(units, raters, codes)
    for args in zip(units, raters, codes.tolist(), strict=True):
        looped.set_rating(*args)
    assert _answers(loaded) == _answers(looped)
    assert loaded.raters() == looped.raters()
    loaded.set_rating(units[0], raters[0], None)  # the loaded state stays editable
    looped.set_rating(units[0], raters[0], None)
    assert _answers(loaded) == _answers(looped)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 4), st.integers(0, 16)),
                max_size=120, unique_by=lambda t: (t[0], t[1])),
       st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5),
                          st.one_of(st.none(), st.integers(0, 16))), max_size=30))
def test_indexed_load_equals_one_call_per_rating_and_stays_editable(ratings, edits):
    """Labels by position (how a project loads) give what set_rating per rating gives; units
    read, edited, emptied or never touched afterwards all stay right."""
    unit_labels = [f"d:{u}" for u in range(31)]  # some hold no rating
    rater_labels = [f"ann{r}" for r in range(5)]
    used = sorted({r for _u, r, _c in ratings})
    loaded, looped = LiveAgreement(0.0, 0.25), LiveAgreement(0.0, 0.25)
    loaded.load_indexed(np.array([u for u, _r, _c in ratings], dtype=np.int64), unit_labels,
                        np.array([used.index(r) for _u, r, _c in ratings], dtype=np.int64),
                        [rater_labels[r] for r in used],
                        np.array([c for _u, _r, c in ratings], dtype=np.int64))
    for unit, rater, code in ratings:
        looped.set_rating(unit_labels[unit], rater_labels[rater], code)
    assert _answers(loaded) == _answers(looped)
    for unit, rater, code in edits:
        for live in (loaded, looped):
            live.set_rating(unit_labels[unit], f"ann{rater}", code)
    assert _answers(loaded) == _answers(looped)
    assert sorted(loaded.units()) == sorted(looped.units())
    for unit in unit_labels:
        assert loaded.unit_ratings(unit) == looped.unit_ratings(unit)


def test_bulk_load_with_repeated_ratings_keeps_the_last():
    live = LiveAgreement(0.0, 1.0)
    live.load(["u", "u", "v", "v"], ["a", "a", "a", "b"], np.array([1, 3, 2, 2]))
    assert live.unit_ratings("u") == {"a": 3}
    assert live.n_ratings == 3


def test_indexed_load_with_repeated_ratings_keeps_the_last(monkeypatch):
    from simrate.core.agreement import load

    tries = []
    monkeypatch.setattr(load, "bulk_state_indexed",
                        lambda *args, _real=load.bulk_state_indexed: tries.append(1) or
                        _real(*args))
    live = LiveAgreement(0.0, 1.0)
    live.load_indexed(np.array([0, 0, 1, 1]), ["u", "v"], np.array([0, 0, 0, 1]), ["a", "b"],
                      np.array([1, 3, 2, 2]))
    assert live.unit_ratings("u") == {"a": 3} and live.unit_ratings("v") == {"a": 2, "b": 2}
    assert live.n_ratings == 3
    assert len(tries) == 1  # the bulk fill refused once, not tried again


def test_counts_access_and_removal():
    live = LiveAgreement(0.0, 1.0)
    for unit, rater, code in [("x", "a", 1), ("x", "b", 2), ("y", "a", 3), ("z", "c", 0)]:
        live.set_rating(unit, rater, code)
    assert (live.n_units, live.n_pairable_units, live.n_ratings) == (3, 1, 4)
    assert live.unit_ratings("x") == {"a": 1, "b": 2} and live.unit_ratings("w") == {}
    live.set_rating("x", "b", None)
    assert (live.n_units, live.n_pairable_units, live.n_ratings) == (3, 0, 3)
    live.set_rating("nothing", "nobody", None)  # removing what is not there is harmless
    live.remove_rater("a")
    assert live.units() == ["z"] and live.raters() == ["c"]  # raters without ratings drop out
    assert live.pearson().columns.tolist() == ["c"]
    live.remove_unit("z")
    assert (live.n_units, live.n_ratings) == (0, 0)
    assert all(live.alpha(level) is None for level in LEVELS)


def test_undefined_figures_are_none_or_nan_without_warnings():
    live = LiveAgreement(0.0, 1.0)
    assert all(live.alpha(level) is None for level in LEVELS)
    assert live.pearson().empty and live.pearson_vs_rest() == {}
    for unit in range(3):
        live.set_rating(unit, "a", 2)
        live.set_rating(unit, "b", 2)
    assert all(live.alpha(level) is None for level in LEVELS)  # no variance
    live.set_rating(10, "c", 1)
    live.set_rating(11, "c", 3)
    r = live.pearson()
    assert np.isnan(r.loc["a", "b"]) and np.isnan(r.loc["a", "c"])  # constant / nothing common
    assert r.loc["c", "c"] == 1.0
    assert live.pearson_vs_rest() == {"a": None, "b": None, "c": None}


def test_pearson_against_scipy_over_common_units():
    live = LiveAgreement(0.0, 1.0)
    a, b = [1, 2, 3, 4, 5, 2], [2, 2, 4, 5, 4, 1]
    for unit, (x, y) in enumerate(zip(a, b, strict=True)):
        live.set_rating(unit, "a", x)
        live.set_rating(unit, "b", y)
    live.set_rating(99, "a", 5)  # only a rated it: not part of the pair
    r = live.pearson()
    assert r.loc["a", "b"] == pytest.approx(stats.pearsonr(a, b)[0], abs=1e-12)
    matrix, raters = live.pearson_matrix()
    assert raters == ["a", "b"] and matrix[0, 1] == r.loc["a", "b"]


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="integer step code"):
        LiveAgreement(0.0, 0.25).set_rating("u", "a", 2.5)
    with pytest.raises(ValueError, match="finite"):
        LiveAgreement().set_rating("u", "a", float("nan"))
    with pytest.raises(TypeError):
        LiveAgreement().set_rating("u", "a", True)
    with pytest.raises(ValueError):
        LiveAgreement(low=1.0)


@pytest.mark.parametrize("level", LEVELS)
def test_disagreement_shares_match_batch(level):
    live = LiveAgreement(0.0, 1.0)
    _random_edits(live, np.random.default_rng(11), list(range(6)), 120, units=20, raters=3)
    data, _, units = live.to_matrix()
    shares = disagreement_shares(live, level)
    assert [shares[u] for u in units] == pytest.approx(unit_disagreement(data, level), abs=1e-12)
    assert unit_share(live, units[0], level) == pytest.approx(shares[units[0]])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), batches=st.lists(st.integers(1, 60), min_size=1,
                                                            max_size=6))
def test_rater_sums_settled_per_batch_equal_recomputation_after_every_batch(seed, batches):
    """Pair and vs-rest sums wait for the next read and are then brought up to date once per
    unit touched; whatever the batches, every read equals an engine built afresh."""
    rng = np.random.default_rng(seed)
    live = LiveAgreement(low=0.0, step=0.25)
    for steps in batches:
        touched = set()
        for _ in range(steps):
            unit, rater = int(rng.integers(8)), f"r{rng.integers(30)}"
            value = None if rng.random() < 0.2 else int(rng.integers(21))
            before = live.unit_ratings(unit).get(rater)
            live.set_rating(unit, rater, value)
            if before != value:
                touched.add(unit)
        assert live.unsettled_units == len(touched)  # alpha is current; nothing else ran
        assert live.alpha() == _rebuild(live).alpha()
        assert _answers(live) == _answers(_rebuild(live))
        assert live.unsettled_units == 0


def test_a_rating_costs_the_same_however_many_raters_share_its_unit():
    """The work of one rating does not grow with the raters of its unit: with 2,000 raters
    on one item, a rating changes no pair sum until they are read."""
    live = LiveAgreement(low=0.0, step=0.25)
    live.load(["u"] * 2000, [f"r{k}" for k in range(2000)], [k % 21 for k in range(2000)])
    pairs_before = [row[:] for row in live._pn[:3]]
    live.set_rating("u", "r0", 20)
    live.set_rating("u", "new", 3)
    assert [row[:2000] for row in live._pn[:3]] == pairs_before  # a new rater's column: 0
    assert live.unsettled_units == 1
    assert live.rater_counts(["new"]) == {"new": (1, 1)}
    assert live.unsettled_units == 0 and live._pn[0][1] == 1
    assert _answers(live) == _answers(_rebuild(live))


def test_unread_rater_sums_are_settled_past_a_bound(monkeypatch):
    """A program that never reads the rater-level figures keeps at most a bound of units
    waiting (their copies), and the figures stay exact."""
    import simrate.core.agreement.live as live_module

    monkeypatch.setattr(live_module, "STALE_UNITS", 5)
    live = LiveAgreement(low=0.0, step=0.25)
    for unit in range(23):
        for rater in range(3):
            live.set_rating(unit, f"r{rater}", (unit * (rater + 1)) % 21)
        assert live.unsettled_units <= 5
    assert _answers(live) == _answers(_rebuild(live))
