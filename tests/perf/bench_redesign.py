"""The redesign's speed check: this checkout against an earlier commit, side by side.

    python tests/perf/bench_redesign.py                      # against the last commit before it
    python tests/perf/bench_redesign.py --ref COMMIT --items 200000 --rounds 3

The earlier commit is checked out into a temporary git worktree. Each round runs, for the
reference and then for this checkout, the same stages of their own benchmark scripts in
fresh interpreters (each tree imports its own `app`): the annotator window's Enter to the
next item (tests/perf/bench_gui.py) and the organizer's verdict to the next flagged item
and rating to dashboard alpha (tests/perf/bench_organizer.py), on projects each tree
builds for itself. Prints medians over rounds and the ratio this/reference.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
#: The last commit before the redesign (folders, events, actions, one agreement model).
BEFORE_REDESIGN = "ef5698a"
MEASURES = (("gui", "enter_median_ms", "Enter to next item shown (median)"),
            ("organizer", "verdict_median_ms", "verdict saved + next flagged shown (median)"),
            ("organizer", "dashboard_median_ms", "rating -> dashboard alpha (median)"),
            ("gui", "open_s", "window open to first item (s)"))


def run(tree: Path, args: list[str]) -> dict:
    """Run a Python snippet or script in `tree` with that tree's `app` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tree,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(args[:2])} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def build(tree: Path, folder: Path, items: int) -> tuple[Path, Path]:
    """Each tree builds its own projects (the file format may differ between them)."""
    gui_path, organizer_path = folder / "gui.simrate", folder / "organizer.simrate"
    code = ("import json, sys; from pathlib import Path; sys.path.insert(0, '.');"
            "from tests.perf.bench_gui import build_project;"
            f"build_project(Path({str(gui_path)!r}), {items}); print(json.dumps({{}}))")
    run(tree, ["-c", code])
    run(tree, ["tests/perf/bench_organizer.py", "--stage", "build", str(organizer_path),
               str(items)])
    return gui_path, organizer_path


def measure(tree: Path, paths: tuple[Path, Path], repeats: int) -> dict:
    """One round of both stages in `tree`."""
    gui = run(tree, ["tests/perf/bench_gui.py", "--child", str(paths[0]), "--filter", "all"])
    organizer = run(tree, ["tests/perf/bench_organizer.py", "--stage", "gui", str(paths[1]),
                           str(repeats)])
    return {"gui": gui, "organizer": organizer}


def main() -> int:
    """Check out the reference, build, measure in alternation, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default=BEFORE_REDESIGN)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=100)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="simrate-redesign-"))
    reference = work / "reference"
    subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", str(reference),
                    opts.ref], check=True, capture_output=True)
    try:
        trees = {"reference": reference, "this": HERE}
        paths = {}
        for name, tree in trees.items():
            (work / name).mkdir(exist_ok=True)
            paths[name] = build(tree, work / name, opts.items)
        results: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(opts.rounds):
            for name, tree in trees.items():
                results[name].append(measure(tree, paths[name], opts.repeats))
    finally:
        subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force",
                        str(reference)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"{opts.items:,} items, medians of {opts.rounds} rounds; reference {opts.ref}")
    print(f"{'measure':<46}{'reference':>11}{'this':>11}{'this/ref':>10}")
    for stage, key, label in MEASURES:
        ref = statistics.median(r[stage][key] for r in results["reference"])
        this = statistics.median(r[stage][key] for r in results["this"])
        print(f"{label:<46}{ref:>11.2f}{this:>11.2f}{this / ref:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
