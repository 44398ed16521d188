"""Long commands show a progress line (count, rate, time left) on an interactive terminal's
standard error, and nothing where standard error is a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from simrate.commands.base.progress import TerminalProgress, duration
from tests.cli.helpers import simrate

ROOT = Path(__file__).resolve().parents[3]
ROWS = 60_000  # three chunks of the writers' 20,000 rows


@pytest.fixture(scope="module")
def big_project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"p{n}\tleft {n}\tright {n}\n" for n in range(ROWS)),
                     encoding="utf-8")
    path = folder / "big.simrate"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for args in (["new", path, "--scale", "sts"], ["import", path, pairs]):
        subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], check=True,
                       env=env, capture_output=True, timeout=300)
    return path


def run_with_stderr_on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run simrate with standard error on a pseudo-terminal: (exit, stdout, what the
    terminal got)."""
    leader, follower = os.openpty()
    try:
        done = subprocess.Popen([sys.executable, "-m", "simrate", *args], stdout=subprocess.PIPE,
                                stderr=follower, text=True, cwd=ROOT)
        os.close(follower)
        out, _ = done.communicate(timeout=300)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed once the program has gone
                break
            if not chunk:
                break
            seen += chunk
        return done.returncode, out, seen.decode("utf-8", "replace")
    finally:
        os.close(leader)


def test_export_on_a_terminal_shows_count_rate_and_time_left(big_project, tmp_path):
    status, out, terminal = run_with_stderr_on_a_terminal(
        ["export", str(big_project), str(tmp_path / "gold.tsv"), "--allow-unresolved"])
    assert status == 0 and f"{ROWS} items written" in out
    assert re.search(r"\rexport: 20,000/60,000 rows \(33%\), [\d,]+ rows/s, [\dmin hs]+ left",
                     terminal), terminal
    assert "60,000/60,000 rows (100%)" in terminal
    assert terminal.count("\r") >= 3  # drawn over itself, then wiped


def test_export_into_a_pipe_prints_no_progress(big_project, tmp_path, capsys):
    done = simrate(capsys, "export", big_project, tmp_path / "gold.tsv", "--allow-unresolved")
    assert done.status == 0 and "rows/s" not in done.err and "\r" not in done.err


def test_the_line_reads_count_share_rate_and_time_left():
    progress = TerminalProgress("import", "pairs", stream=open(os.devnull, "w"))
    assert progress.line(50_000, 200_000, 10.0) == (
        "import: 50,000/200,000 pairs (25%), 5,000 pairs/s, 30 s left")
    assert progress.line(0, 10, 0.0) == "import: 0/10 pairs (0%)"
    assert duration(185) == "3 min 05 s" and duration(3720) == "1 h 02 min"
    progress.stream.close()


def test_import_on_a_terminal_shows_the_pairs_written(tmp_path):
    pairs = tmp_path / "many.tsv"
    pairs.write_text("".join(f"q{n}\tleft {n}\tright {n}\n" for n in range(45_000)),
                     encoding="utf-8")
    path = tmp_path / "i.simrate"
    assert run_with_stderr_on_a_terminal(["new", str(path), "--scale", "sts"])[0] == 0
    status, out, terminal = run_with_stderr_on_a_terminal(["import", str(path), str(pairs)])
    assert status == 0 and "45000 items added" in out
    assert re.search(r"\rimport many\.tsv: 20,000/45,000 pairs \(44%\), [\d,]+ pairs/s, "
                     r"[\dmin hs]+ left", terminal), terminal
    assert "45,000/45,000 pairs (100%)" in terminal


def test_agreement_ci_on_a_terminal_counts_the_replicates(tmp_path):
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("item_id,ann,bob,cy\n" + "".join(
        f"i{n},{n % 6},{(n + n % 2) % 6},{(n + 1) % 6}\n" for n in range(300)), encoding="utf-8")
    status, out, terminal = run_with_stderr_on_a_terminal(
        ["agreement", "--ratings", str(ratings), "--ci", "--level", "all"])
    assert status == 0 and "95%" in out
    assert re.search(r"\ragreement --ci: 1,000/4,000 replicates \(25%\), [\d,]+ replicates/s, "
                     r"[\dmin hs]+ left", terminal), terminal
    assert "4,000/4,000 replicates (100%)" in terminal


def test_salvage_on_a_terminal_counts_the_tables(big_project, tmp_path):
    status, out, terminal = run_with_stderr_on_a_terminal(
        ["check", str(big_project), "--salvage", str(tmp_path / "rescued.simrate")])
    assert status == 0 and "no damage found" in out
    counts = re.findall(r"salvage big\.simrate: (\d+)/(\d+) tables", terminal)
    assert counts and counts[-1][0] == counts[-1][1], terminal  # drawn to the last table
