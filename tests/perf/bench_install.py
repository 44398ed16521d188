"""Benchmark the standalone bundle against the pip-installed program: size and start-up time.

Run (after `packaging/build-bundle.sh`, from the environment of **Test it**):
    python tests/perf/bench_install.py [--bundle build/bundle/simrate] [--repeats 9]

Both programs run side by side in one session, alternately, each in a fresh process with a
warm file cache (one unmeasured run of each first): `simrate --version`, and opening the
window offscreen on the sample project until it is shown and closed (`--quit-when-shown`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASKS = {
    "--version": ["--version"],
    "window on the sample, offscreen": ["--sample", "--annotator", "bench", "--quit-when-shown"],
}


def folder_size(path: Path) -> int:
    """Bytes in the files under `path` (links not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def timed(program: Path, args: list[str], env: dict[str, str]) -> float:
    """Seconds from starting `program args` to its exit (which must be 0)."""
    start = time.perf_counter()
    subprocess.run([str(program), *args], env=env, check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(programs: dict[str, Path], repeats: int, home: Path) -> dict[tuple[str, str], list]:
    """Start-up times per (program, task), the programs alternating run by run."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(home / "share"),
           "XDG_CONFIG_HOME": str(home / "config")}
    times: dict[tuple[str, str], list] = {}
    for task, args in TASKS.items():
        for program in programs.values():
            timed(program, args, env)  # warm the file cache; builds the sample the first time
        for _ in range(repeats):
            for name, program in programs.items():
                times.setdefault((name, task), []).append(timed(program, args, env))
    return times


def main() -> int:
    """Print the sizes and the start-up table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "build" / "bundle" / "simrate")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    bundled = args.bundle / "simrate"
    installed = Path(sys.executable).parent / "simrate"
    if not bundled.is_file():
        print(f"no bundle at {args.bundle}: build it with packaging/build-bundle.sh",
              file=sys.stderr)
        return 2
    if not installed.is_file():
        installed = Path(shutil.which("simrate") or "simrate")
    archives = sorted(args.bundle.parent.glob("simrate-*-linux-*.tar.gz"))
    print(f"bundle folder: {folder_size(args.bundle) / 2**20:.0f} MiB")
    for archive in archives:
        print(f"archive {archive.name}: {archive.stat().st_size / 2**20:.0f} MiB")
    programs = {"bundle": bundled, "pip install": installed}
    with tempfile.TemporaryDirectory() as home:
        times = measure(programs, args.repeats, Path(home))
    print(f"\nstart-up, median of {args.repeats} (min-max), seconds")
    print("| task | bundle | pip install | bundle / pip |\n|---|---:|---:|---:|")
    for task in TASKS:
        bundle, pip = times[("bundle", task)], times[("pip install", task)]
        cells = [f"{statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f})" for t in (bundle, pip)]
        ratio = statistics.median(bundle) / statistics.median(pip)
        print(f"| {task} | {cells[0]} | {cells[1]} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main())
