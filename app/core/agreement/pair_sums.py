"""Per pair of raters, sums over the units both rated: count, sum x_a, sum x_a^2, sum x_a x_b.

What pairwise Pearson needs of long-form ratings (sparse.py). Three ways, the same sums:
- dense-ish ratings (most raters rate most units, a few million cells at most): the raters x
  units matrix, each sum one np.einsum over it;
- otherwise units with a few ratings: every pair of ratings within a unit, listed;
- units with many ratings (check items everyone rates): sparse raters x units products.
"""

from __future__ import annotations

import numpy as np

#: At most this many raters x units cells, and ratings in at least half of them, for the
#: dense route.
_DENSE_CELLS = 5_000_000


def _dense_pair_sums(unit: np.ndarray, rater: np.ndarray, x: np.ndarray, units: int,
                     count: int) -> list[np.ndarray] | None:
    """[n, sx, sxx, sxy] from the raters x units matrix; None when the ratings are too
    sparse for it or a rater rates a unit twice. Self pairs are left at 0, as when listed."""
    cells = count * units
    if cells > _DENSE_CELLS or 2 * x.size < cells:
        return None
    where = rater * units + unit
    if x.size and np.bincount(where, minlength=cells).max() > 1:
        return None
    flat_values, flat_present = np.zeros(cells), np.zeros(cells)
    flat_values[where], flat_present[where] = x, 1.0
    values, present = flat_values.reshape(count, units), flat_present.reshape(count, units)
    sums = [np.einsum("au,bu->ab", a, b) for a, b in
            ((present, present), (values, present), (values * values, present),
             (values, values))]
    for total in sums:
        np.fill_diagonal(total, 0.0)
    return sums


#: Units with more ratings than this (check items everyone rates) are summed by a sparse
#: product; the others by listing their pairs of ratings, which is faster for a few each.
_LISTED_PAIRS_UP_TO = 24


def _listed_pair_sums(unit: np.ndarray, rater: np.ndarray, x: np.ndarray, count: int
                      ) -> list[np.ndarray]:
    """[n, sx, sxx, sxy] (raters x raters) from every pair of ratings within a unit."""
    order = np.argsort(unit, kind="stable")
    unit, rater, x = unit[order], rater[order], x[order]
    size = count * count
    sums = [np.zeros(size) for _ in range(4)]
    most = int(np.bincount(unit).max()) if unit.size else 0
    for delta in range(1, most):
        a = np.flatnonzero(unit[:-delta] == unit[delta:])
        b = a + delta
        key = rater[a] * count + rater[b]
        for total, weights in zip(sums, (None, x[a], x[a] * x[a], x[a] * x[b]), strict=True):
            total += np.bincount(key, weights, minlength=size)
        # the other orientation: b's view of the pair
        key = rater[b] * count + rater[a]
        for total, weights in zip(sums, (None, x[b], x[b] * x[b], x[a] * x[b]), strict=True):
            total += np.bincount(key, weights, minlength=size)
    return [total.reshape(count, count) for total in sums]


def _product_pair_sums(unit: np.ndarray, rater: np.ndarray, x: np.ndarray, units: int,
                       count: int) -> list[np.ndarray]:
    """[n, sx, sxx, sxy] (raters x raters) from sparse raters x units products."""
    from scipy import sparse

    shape = (count, units)
    present = sparse.csr_matrix((np.ones(x.size), (rater, unit)), shape=shape)
    values = sparse.csr_matrix((x, (rater, unit)), shape=shape)
    squares = sparse.csr_matrix((x * x, (rater, unit)), shape=shape)
    # [a, b]: over the units both rated, the count, sum of a's values, of their squares, and
    # of the products
    return [(present @ present.T).toarray(), (values @ present.T).toarray(),
            (squares @ present.T).toarray(), (values @ values.T).toarray()]


def pair_sums(unit: np.ndarray, rater: np.ndarray, x: np.ndarray, units: int, count: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair of raters over their shared units: count, sum x_a, sum x_a^2, sum x_a x_b."""
    dense = _dense_pair_sums(unit, rater, x, units, count)
    if dense is not None:
        n, sx, sxx, sxy = dense
        return np.rint(n), sx, sxx, sxy
    m = np.bincount(unit, minlength=units)
    big = m[unit] > _LISTED_PAIRS_UP_TO
    sums = _listed_pair_sums(unit[~big], rater[~big], x[~big], count)
    if big.any():
        more = _product_pair_sums(unit[big], rater[big], x[big], units, count)
        sums = [a + b for a, b in zip(sums, more, strict=True)]
    n, sx, sxx, sxy = sums
    return np.rint(n), sx, sxx, sxy
