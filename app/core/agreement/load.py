"""Vectorised filling of an empty LiveAgreement from arrays (opening a project of 200,000 items).

Produces exactly the integer sums that one set_rating call per rating would; sums are taken in
float64 only while they provably stay below 2**53 (exact), otherwise the caller falls back to
set_rating one by one.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simrate.core.agreement.batch import unique_ints

_EXACT = 2 ** 53


def _integer_codes(values: Any) -> np.ndarray | None:
    """The values as int64 codes, or None when any is not an integer."""
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind != "f" or not np.isfinite(array).all():
        return None
    codes = array.astype(np.int64)
    return codes if np.array_equal(codes, array) else None


def _sums(keys: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Exact integer sums of integer weights per key (float64 is exact below 2**53)."""
    return np.rint(np.bincount(keys, weights=weights, minlength=size)).astype(np.int64)


def _distinct(codes: np.ndarray) -> np.ndarray:
    """The distinct codes, ascending (by counting when they span a small range)."""
    low, high = int(codes.min()), int(codes.max())
    if high - low > 1 << 20:
        return unique_ints(codes)[0]
    return np.flatnonzero(np.bincount(codes - low)) + low


def _within_unit_pairs(unit: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Ordered pairs (a, b), a != b, of rating positions in one unit (ratings sorted by unit)."""
    firsts, seconds = [], []
    positions = np.arange(unit.size)
    for delta in range(1, most):
        same = unit[:-delta] == unit[delta:]
        a = positions[:-delta][same]
        firsts += [a, a + delta]
        seconds += [a + delta, a]
    if not firsts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def bulk_state(live: Any, units: Sequence[Hashable], raters: Sequence[Hashable],
               values: Any) -> bool:
    """Fill an empty code-mode LiveAgreement; False (and nothing changed) when not possible."""
    codes = _integer_codes(values) if live.codes else None
    if codes is None or not (len(units) == len(raters) == codes.size):
        return False
    unit_idx, unit_labels = pd.factorize(pd.Index(list(units)), sort=False)
    rater_idx, rater_labels = pd.factorize(pd.Index(list(raters)), sort=False)
    return bulk_state_indexed(live, unit_idx, list(unit_labels), rater_idx, list(rater_labels),
                              codes)


def bulk_state_indexed(live: Any, unit_idx: np.ndarray, unit_labels: Sequence[Hashable],
                       rater_idx: np.ndarray, rater_labels: Sequence[Hashable],
                       codes: np.ndarray) -> bool:
    """bulk_state for ratings given as positions into unit and rater labels (every rater
    label holds a rating; unit labels may hold none)."""
    n_raters = len(rater_labels)
    unit_idx, rater_idx = unit_idx.astype(np.int64), rater_idx.astype(np.int64)
    key = unit_idx * n_raters + rater_idx
    if not (key[1:] > key[:-1]).all():  # a project's columns come sorted: no sort then
        order = np.argsort(key, kind="stable")  # by unit, then rater
        key = key[order]
        if (key[1:] == key[:-1]).any():
            return False  # repeated (unit, rater): let set_rating apply them in order
        unit_idx, rater_idx, codes = unit_idx[order], rater_idx[order], codes[order]
    m_unit = np.bincount(unit_idx, minlength=len(unit_labels))
    bound = int(np.abs(codes).max()) * int(m_unit.max())
    if codes.size * bound * bound >= _EXACT:
        return False
    domain = _distinct(codes)
    value_idx = np.array([live._intern(int(c)) for c in domain], dtype=np.int64)
    vidx = value_idx[np.searchsorted(domain, codes)]
    if live._raters:
        for rater in rater_labels:
            live._rater(rater)
    else:  # no rater yet: register them at once (_fill_sums sizes their tables)
        live._raters = list(rater_labels)
        live._rater_pos = {rater: pos for pos, rater in enumerate(live._raters)}
    rater_pos = np.array([live._rater_pos[r] for r in rater_labels], dtype=np.int64)[rater_idx]
    sorted_ = {"unit": unit_idx, "x": codes, "v": vidx, "rater": rater_pos}
    _fill_units(live, unit_labels, m_unit, np.asarray(rater_labels, dtype=object)[rater_idx],
                vidx)
    _fill_sums(live, sorted_, m_unit)
    return True


def _fill_units(live: Any, unit_labels: Sequence[Hashable], m_unit: np.ndarray,
                raters: np.ndarray, vidx: np.ndarray) -> None:
    """Hand the ratings, sorted by unit, to the unit table (dicts made on first use)."""
    present = np.flatnonzero(m_unit)
    offsets = np.zeros(present.size + 1, dtype=np.int64)
    np.cumsum(m_unit[present], out=offsets[1:])
    labels = unit_labels if present.size == len(unit_labels) else \
        [unit_labels[k] for k in present.tolist()]
    live._units.fill(labels, offsets, raters, vidx)
    live._n_ratings = vidx.size


def _fill_sums(live: Any, r: dict[str, np.ndarray], m_unit: np.ndarray) -> None:
    """Per-rater, pairable, coincidence, pair and vs-rest sums from ratings sorted by unit."""
    x, unit, rater = r["x"], r["unit"], r["rater"]
    n_units, n_raters = m_unit.size, len(live._raters)
    count_r = np.bincount(rater, minlength=n_raters)
    sx_r, sxx_r = _sums(rater, x, n_raters), _sums(rater, x * x, n_raters)
    live._rsum = [[int(a), int(b), int(c)] for a, b, c in zip(count_r, sx_r, sxx_r, strict=True)]
    m = m_unit[unit]
    s1_u = _sums(unit, x, n_units)
    s2_u = _sums(unit, x * x, n_units)
    pairable_u = m_unit >= 2
    live._pairable_units = int(pairable_u.sum())
    live._n = int(m_unit[pairable_u].sum())
    live._s1, live._s2 = int(s1_u[pairable_u].sum()), int(s2_u[pairable_u].sum())
    spread_u = m_unit * s2_u - s1_u * s1_u
    live._t = {int(k): int(spread_u[pairable_u & (m_unit == k)].sum())
               for k in np.flatnonzero(np.bincount(m_unit[pairable_u]))}
    in_pair = m >= 2
    live._nv = np.bincount(r["v"][in_pair], minlength=len(live._nv)).tolist()
    a, b = _within_unit_pairs(unit, int(m_unit.max()))
    _fill_coincidences(live, r["v"], m, a, b)
    _fill_pairs(live, x, rater, a, b)
    _fill_rest(live, x, rater, m, s1_u[unit] - x, in_pair)


def _fill_coincidences(live: Any, v: np.ndarray, m: np.ndarray, a: np.ndarray,
                       b: np.ndarray) -> None:
    cap = live._cap
    live._coinc = {}
    for k in np.flatnonzero(np.bincount(m[a])) if a.size else []:
        chosen = m[a] == k
        flat = np.bincount(v[a][chosen] * cap + v[b][chosen], minlength=cap * cap)
        live._coinc[int(k)] = flat.astype(np.int64).reshape(cap, cap)


def _fill_pairs(live: Any, x: np.ndarray, rater: np.ndarray, a: np.ndarray,
                b: np.ndarray) -> None:
    count = len(live._raters)
    key = rater[a] * count + rater[b]
    size = count * count

    def table(weights: np.ndarray | None) -> list[list[int]]:
        """Rater x rater sums of `weights` (counts when None) as nested lists."""
        flat = (np.bincount(key, minlength=size) if weights is None
                else _sums(key, weights, size))
        return flat.reshape(count, count).tolist()

    live._pn = table(None)
    live._psx = table(x[a])
    live._psxx = table(x[a] * x[a])
    live._psxy = table(x[a] * x[b])


def _fill_rest(live: Any, x: np.ndarray, rater: np.ndarray, m: np.ndarray, rest: np.ndarray,
               in_pair: np.ndarray) -> None:
    x, rater, m, rest = x[in_pair], rater[in_pair], m[in_pair], rest[in_pair]
    live._rest = [{} for _ in live._raters]
    if not x.size:
        return
    top = int(m.max()) + 1
    key = rater * top + m
    size = len(live._raters) * top
    columns = [np.bincount(key, minlength=size)] + [
        _sums(key, w, size) for w in (x, x * x, rest, rest * rest, x * rest)
    ]
    for k in np.flatnonzero(columns[0]):
        groups = live._rest[int(k) // top]
        groups[int(k) % top] = [int(col[k]) for col in columns]
