"""Small projects and files that several test folders build the same way: the sample pairs
rated by three raters (made with the command line), a copy of a project file, its `info`,
crowd results in Turk's layout, a ratings file, and what a project holds."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from simrate.core.project import Project
from tests.support.helpers import ROOT, run_cli

SAMPLE = ROOT / "sample_data"

#: Turk's results header for one pair a row (crowd imports).
TURK_HEADER = ("HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
               "Input.id1,Input.left1,Input.right1,Answer.score1\n")


def rated_sample(folder: Path, one_file: bool = False) -> Path:
    """An sts project of the sample pairs with three raters, its WAL written into the file;
    with `one_file`, in rollback-journal mode too (no -wal beside it at all)."""
    path = folder / "p.simrate"
    assert run_cli("new", path, "--scale", "sts").returncode == 0
    for name in ("pairs.tsv", "ratings_long.csv"):
        assert run_cli("import", path, SAMPLE / name).returncode == 0
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if one_file:
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    return path


def copy_project(path: Path, folder: Path, name: str = "c.simrate") -> Path:
    """A byte copy of a closed, checkpointed project file."""
    target = folder / name
    target.write_bytes(path.read_bytes())
    return target


def info(path: Path) -> dict:
    """`simrate info --json` of a project."""
    result = run_cli("info", path, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def turk_results(path: Path, rows: list[str]) -> Path:
    """A Turk results file of these data rows."""
    path.write_text(TURK_HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return path


def table_rows(path: Path) -> dict[str, list]:
    """Everything a user can see of the project, straight from the file."""
    with sqlite3.connect(path) as conn:
        return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("items", "ratings", "annotators")}


def ratings_file(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    """A long ratings CSV (item_id, annotator, score)."""
    path.write_text("item_id,annotator,score\n"
                    + "".join(f"{i},{a},{s}\n" for i, a, s in rows), encoding="utf-8")
    return path


def held(path: Path) -> dict[tuple[str, str], float | None]:
    """The project's ratings as {(item, annotator): score}."""
    with Project.open(path) as project:
        table = project.ratings()
    return {(i, a): s for i, a, s in zip(table["item_id"], table["annotator"], table["score"],
                                         strict=True)}
