"""Benchmark agreement: batch alpha beside krippendorff.alpha, live edits, bootstrap intervals.

Run: python tests/perf/bench_agreement.py [--sizes 2000,20000,200000]
Data: 3 raters, values on a 0-5 grid of 0.25 (21 values), 10% of ratings missing.
Every measurement runs in its own interpreter; memory is the tracemalloc peak of the call
itself (allocations beyond the input data), with the growth of max RSS beside it.
Targets (issue 3): full alpha at 200,000 items >= 20x faster than krippendorff.alpha and
<= 100 MB extra; one edit + interval alpha <= 50 us, + ordinal alpha <= 200 us, + all pairwise
Pearson of 5 raters <= 100 us; 1,000 bootstrap replicates at 200,000 items: Hayes &
Krippendorff <= 1 s, unit-level <= 5 s.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def make_data(units: int, raters: int = 3, seed: int = 0):
    """Raters x units quarter-point ratings on 0-5 around a true score, 10% missing."""
    import numpy as np

    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 21, units)
    data = np.clip(truth + rng.integers(-2, 3, (raters, units)), 0, 20) * 0.25
    data[rng.random(data.shape) < 0.1] = np.nan
    return data


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measured(call, repeats: int) -> dict:
    """Best wall time of `repeats` calls, tracemalloc peak and max-RSS growth of the first."""
    rss_before = _rss_mb()
    tracemalloc.start()
    start = time.perf_counter()
    value = call()
    first = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    rss_growth = _rss_mb() - rss_before
    times = [first]
    for _ in range(repeats - 1):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return {"seconds": min(times), "peak_mb": peak, "rss_mb": rss_growth, "value": value}


def stage_alpha(impl: str, units: int, level: str) -> dict:
    data = make_data(units)
    if impl == "krippendorff":
        import krippendorff

        def call():
            return float(krippendorff.alpha(data, level_of_measurement=level))
        repeats = 1 if units > 50_000 else 3
    else:
        from simrate.core.agreement import alpha

        def call():
            return alpha(data, level)
        repeats = 5
    return measured(call, repeats)


def _filled_live(units: int, raters: int):
    import numpy as np

    from simrate.core.agreement import LiveAgreement

    data = make_data(units, raters)
    rows, cols = np.nonzero(~np.isnan(data))
    live = LiveAgreement(low=0.0, step=0.25)
    start = time.perf_counter()
    live.load(cols.tolist(), [f"r{r}" for r in rows], (data[rows, cols] * 4).astype(np.int64))
    return live, time.perf_counter() - start


def stage_live(units: int, raters: int, query: str, edits: int = 20_000) -> dict:
    """Median and 95th percentile of one random edit followed by one query."""
    import numpy as np

    live, load_seconds = _filled_live(units, raters)
    rng = np.random.default_rng(1)
    unit = rng.integers(0, units, edits).tolist()
    rater = [f"r{r}" for r in rng.integers(0, raters, edits)]
    code = [None if c > 20 else c for c in rng.integers(0, 23, edits).tolist()]
    ask = {
        "edit only": lambda: None,
        "interval alpha": lambda: live.alpha("interval"),
        "ordinal alpha": lambda: live.alpha("ordinal"),
        "pearson_matrix": live.pearson_matrix,
        "pearson DataFrame": live.pearson,
        "pearson_vs_rest": live.pearson_vs_rest,
    }[query]
    clock = time.perf_counter_ns
    times = []
    for u, r, c in zip(unit, rater, code, strict=True):
        start = clock()
        live.set_rating(u, r, c)
        ask()
        times.append(clock() - start)
    times.sort()
    return {"median_us": statistics.median(times) / 1000,
            "p95_us": times[int(0.95 * len(times))] / 1000,
            "load_seconds": load_seconds, "rss_mb": _rss_mb()}


def stage_ci(units: int, method: str, level: str) -> dict:
    from simrate.core.agreement.intervals import alpha_ci

    data = make_data(units)
    return measured(lambda: alpha_ci(data, level, method, replicates=1000, seed=0), 1)


STAGES = {"alpha": stage_alpha, "live": stage_live, "ci": stage_ci}


def run_stage(name: str, *args: object) -> dict:
    """Run one stage of this benchmark in a fresh interpreter."""
    return stages.run_stage(__file__, name, *args)


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report_alpha(sizes: list[int]) -> None:
    print(f"{'full alpha (interval)':<28}{'krippendorff':>14}{'peak':>10}{'simrate':>12}"
          f"{'peak':>10}{'speed-up':>10}{'same value':>12}")
    for units in sizes:
        ref = run_stage("alpha", "krippendorff", units, "interval")
        ours = run_stage("alpha", "simrate", units, "interval")
        speedup = ref["seconds"] / ours["seconds"]
        same = abs(ref["value"] - ours["value"]) < 1e-9
        line = (f"{format(units, ',') + ' items':<28}{ref['seconds'] * 1000:>11.1f} ms"
                f"{ref['peak_mb']:>7.0f} MB{ours['seconds'] * 1000:>9.1f} ms"
                f"{ours['peak_mb']:>7.1f} MB{speedup:>9.0f}x{str(same):>12}")
        if units == max(sizes) and units >= 200_000:
            line += f"   target >= 20x, <= 100 MB: {verdict(speedup >= 20 and ours['peak_mb'] <= 100)}"
        print(line)
    units = max(sizes)
    for level in ("ordinal", "nominal", "ratio"):
        ours = run_stage("alpha", "simrate", units, level)
        print(f"{'  ' + level + ', ' + format(units, ',') + ' items':<28}{'':>24}"
              f"{ours['seconds'] * 1000:>9.1f} ms{ours['peak_mb']:>7.1f} MB")


def report_live(units: int) -> None:
    print(f"\n{'live: one edit + query, ' + format(units, ',') + ' items':<44}"
          f"{'median':>10}{'p95':>10}{'target':>10}")
    targets = {"interval alpha": 50, "ordinal alpha": 200, "pearson_matrix": 100}
    loads = {}
    for raters, query in ((3, "edit only"), (3, "interval alpha"), (3, "ordinal alpha"),
                          (3, "pearson_vs_rest"), (5, "pearson_matrix"),
                          (5, "pearson DataFrame")):
        out = run_stage("live", units, raters, query)
        loads[raters] = (out["load_seconds"], out["rss_mb"])
        target = targets.get(query)
        tail = f"{'<= ' + str(target) + ' us':>10}  {verdict(out['median_us'] <= target)}" \
            if target else ""
        print(f"{'  ' + query + f' ({raters} raters)':<44}{out['median_us']:>7.1f} us"
              f"{out['p95_us']:>7.1f} us{tail}")
    for raters, (seconds, rss) in loads.items():
        print(f"  (LiveAgreement.load of {units:,} items x {raters} raters, 10% missing: "
              f"{seconds:.2f} s; process max RSS {rss:.0f} MB)")


def report_ci(units: int) -> None:
    print(f"\n{'1,000 bootstrap replicates, ' + format(units, ',') + ' items':<44}"
          f"{'time':>10}{'peak':>10}{'target':>10}")
    for method, level, target in (("hayes", "interval", 1.0), ("units", "interval", 5.0),
                                  ("hayes", "ordinal", 1.0), ("units", "ordinal", 5.0)):
        out = run_stage("ci", units, method, level)
        low, high = out["value"]
        print(f"{'  ' + method + ', ' + level + f' [{low:.4f}, {high:.4f}]':<44}"
              f"{out['seconds']:>8.2f} s{out['peak_mb']:>7.0f} MB{'<= ' + str(target) + ' s':>10}"
              f"  {verdict(out['seconds'] <= target)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000,20000,200000")
    opts = stages.options_or_stage(parser, STAGES, peak=False)
    if opts is None:
        return
    sizes = [int(s) for s in opts.sizes.split(",")]
    report_alpha(sizes)
    report_live(max(sizes))
    report_ci(max(sizes))


if __name__ == "__main__":
    main()
