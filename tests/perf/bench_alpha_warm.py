"""Benchmark: simrate's alpha against `krippendorff.alpha` as a user sees them, warm and cold.

Run: python tests/perf/bench_alpha_warm.py [--units 200000] [--pairs 9]

Warm: in one process, after one untimed call of each, the two are called in turn (simrate,
krippendorff, simrate, ...) `--pairs` times on the same data (3 raters, a 0-5 grid of 0.25,
10% missing: bench_agreement.make_data), so both see the same machine load; the figure is
the median of the per-pair ratios, with each side's median time.
Cold: each library's first call in a fresh interpreter, imports excluded (the krippendorff
package's first call takes seconds more than its later ones), median of 3 processes each.
The same value from both is checked on every call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script
from bench_agreement import make_data

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _callables(units: int):
    import krippendorff

    from simrate.core.agreement import alpha

    data = make_data(units)
    return (lambda: alpha(data, "interval"),
            lambda: float(krippendorff.alpha(data, level_of_measurement="interval")))


def stage_cold(impl: str, units: int) -> dict:
    """One first call of `impl` in this fresh interpreter (its imports done beforehand)."""
    ours, theirs = _callables(units)
    call = ours if impl == "simrate" else theirs
    start = time.perf_counter()
    value = call()
    return {"seconds": time.perf_counter() - start, "value": value}


def warm_pairs(units: int, pairs: int) -> dict:
    """Alternate the two warm calls in this process; their times and per-pair ratios."""
    ours, theirs = _callables(units)
    first_ours, first_theirs = ours(), theirs()  # warm-up, untimed
    assert abs(first_ours - first_theirs) < 1e-9, (first_ours, first_theirs)
    times_ours, times_theirs = [], []
    for _ in range(pairs):
        for call, times in ((ours, times_ours), (theirs, times_theirs)):
            start = time.perf_counter()
            value = call()
            times.append(time.perf_counter() - start)
            assert abs(value - first_ours) < 1e-9
    ratios = [t / o for o, t in zip(times_ours, times_theirs, strict=True)]
    return {"simrate": statistics.median(times_ours),
            "krippendorff": statistics.median(times_theirs),
            "ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios)}


STAGES = {"cold": stage_cold}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=200_000)
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--cold-runs", type=int, default=3)
    opts = stages.options_or_stage(parser, STAGES, peak=False)
    if opts is None:
        return
    warm = warm_pairs(opts.units, opts.pairs)
    print(f"interval alpha, {opts.units:,} items x 3 raters, 10% missing")
    print(f"  warm, one process, {opts.pairs} alternating pairs: simrate "
          f"{warm['simrate'] * 1000:.1f} ms, krippendorff {warm['krippendorff'] * 1000:.0f} ms;"
          f" median ratio {warm['ratio']:.0f}x (pairs {warm['low']:.0f}x-{warm['high']:.0f}x)")
    cold = {impl: statistics.median(stages.run_stage(__file__, "cold", impl, opts.units)
                                    ["seconds"] for _ in range(opts.cold_runs))
            for impl in ("simrate", "krippendorff")}
    print(f"  cold, first call in a fresh process (median of {opts.cold_runs}): simrate "
          f"{cold['simrate'] * 1000:.1f} ms, krippendorff {cold['krippendorff']:.2f} s; "
          f"ratio {cold['krippendorff'] / cold['simrate']:.0f}x")


if __name__ == "__main__":
    main()
