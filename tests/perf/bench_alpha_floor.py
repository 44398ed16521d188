"""Batch alpha against the one-pass numpy floor, per level (used by bench_scale.py).

Run: python tests/perf/bench_alpha_floor.py N [REPEAT]   (prints JSON {level: [ours, floor]})

Both start from the same raters x units float array (NaN missing). The floor: step codes,
an integer key per unit (its pattern of step codes over the raters), one
np.bincount over the keys, then work proportional to the number of distinct patterns.
It is checked to give our alpha to 1e-9 before it is timed, so it is a fair floor.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# this checkout's app, not whichever one an editable install points at (a git worktree)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from simrate.core.agreement.batch import LEVELS, alpha  # noqa: E402


def make_codes(n: int, raters: int = 3, seed: int = 3) -> np.ndarray:
    """raters x n step codes 0..20 with about 5% missing (-1), like bench_scale's data."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 21, n)
    codes = np.clip(base + rng.integers(-2, 3, (raters, n)), 0, 20)
    return np.where(rng.random((raters, n)) < 0.05, -1, codes)


def floor_alpha(data: np.ndarray, level: str, low: float = 0.0, step: float = 0.25) -> float:
    """Alpha of raters x units data (NaN missing, values on the grid low + k * step) from
    pattern counts: codes, one key per unit, one bincount, then per-pattern work."""
    codes = np.rint((data - low) / step)
    codes = np.where(np.isnan(codes), -1, codes).astype(np.int64)
    raters, values = codes.shape[0], int(codes.max()) + 2
    key = np.zeros(codes.shape[1], dtype=np.int64)
    for r in range(raters):
        key = key * values + (codes[r] + 1)
    counts = np.bincount(key)
    patterns = np.flatnonzero(counts)
    weight = counts[patterns].astype(np.float64)
    digits = np.empty((raters, patterns.size), dtype=np.int64)
    rest = patterns.copy()
    for r in range(raters - 1, -1, -1):
        rest, digits[r] = np.divmod(rest, values)
    present = digits > 0
    m = present.sum(axis=0)
    keep = m >= 2
    digits, present, m, weight = digits[:, keep], present[:, keep], m[keep], weight[keep]
    n_c = np.zeros(values, dtype=np.float64)
    np.add.at(n_c, digits[present], np.broadcast_to(weight, digits.shape)[present])
    real = low + (np.arange(values) - 1) * step
    if level == "ordinal":
        real = np.cumsum(n_c) - n_c / 2.0
    delta = _distances(level, real)
    do = np.zeros(m.size)
    for a in range(raters):
        for b in range(raters):
            if a != b:
                both = present[a] & present[b]
                do += np.where(both, delta[digits[a], digits[b]], 0.0)
    n = n_c.sum()
    observed = float((weight * do / (m - 1)).sum())
    expected = float(n_c @ delta @ n_c) / (n - 1)
    return 1.0 - observed / expected


def _distances(level: str, real: np.ndarray) -> np.ndarray:
    a, b = real[:, None], real[None, :]
    if level == "nominal":
        return (a != b).astype(np.float64)
    if level == "ratio":
        total = a + b
        return np.divide(a - b, total, out=np.zeros(total.shape), where=total != 0) ** 2
    return (a - b) ** 2


def median_time(fn, repeat: int) -> float:
    """Median seconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    import stages  # tests/perf/stages.py, beside this script

    opts = stages.positionals(__doc__, ("items", int, None, "units of 3 raters"),
                              ("repeat", int, 5, "runs of each"))
    n, repeat = opts.items, opts.repeat
    codes = make_codes(n)
    data = np.where(codes < 0, np.nan, codes * 0.25)
    out = {}
    for level in LEVELS:
        ours, floor = alpha(data, level), floor_alpha(data, level)
        if abs(ours - floor) > 1e-9:
            raise SystemExit(f"floor and batch alpha differ at {level}: {floor} vs {ours}")
        out[level] = [median_time(lambda lv=level: alpha(data, lv), repeat),
                      median_time(lambda lv=level: floor_alpha(data, lv), repeat)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
