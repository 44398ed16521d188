"""`simrate check` and `--salvage`, fourth round: nothing opened that cannot be bounded, a
newer schema refused, every table of the project checked (web studies too), a stray -wal
told apart from damage, SQLite's path limit said as such, nothing left behind."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simrate.core.check.check_open import SQLITE_PATH_MAX
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, new_project, one_line_error

SAMPLES = ROOT / "sample_data"


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    new_project(path, n_items=5).close()
    return path


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_check_on_a_fifo_answers_at_once(tmp_path):
    fifo = tmp_path / "pipe.simrate"
    os.mkfifo(fifo)
    for extra in ([], ["--salvage", str(tmp_path / "new.simrate")]):
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "simrate", "check", str(fifo), *extra],
                                cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert time.monotonic() - started < 30
        assert result.returncode == 2
        one_line_error(result.stderr, "a device or pipe, not a file")
    assert _files(tmp_path) == ["pipe.simrate"]


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null"])
def test_check_on_a_device_is_one_line_without_a_salvage_hint(capsys, target):
    result = simrate(capsys, "check", target)
    assert result.status == 2 and result.out == ""
    line = one_line_error(result.err, target, "a device or pipe")
    assert "salvage" not in line


def test_check_of_a_name_too_long_is_one_line(capsys, tmp_path):
    result = simrate(capsys, "check", tmp_path / ("n" * 300 + ".simrate"))
    assert result.status == 2
    one_line_error(result.err, "File name too long")


def test_check_leaves_no_wal_or_shm_behind(capsys, project):
    before = _files(project.parent)
    assert simrate(capsys, "check", project).status == 0
    assert simrate(capsys, "check", project, "--json").status == 0
    assert _files(project.parent) == before


def _make_newer(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    conn.execute("ALTER TABLE items ADD COLUMN weight REAL")
    conn.execute("UPDATE items SET weight = 0.5")
    conn.commit()
    conn.close()


def test_a_newer_schema_is_refused_by_check_and_salvage_as_by_every_command(
        capsys, project, tmp_path):
    _make_newer(project)
    before = project.read_bytes()
    info = simrate(capsys, "info", project)
    assert info.status == 2 and "made by a newer simrate" in info.err
    check = simrate(capsys, "check", project)
    assert check.status == 2 and check.out == ""
    one_line_error(check.err, "made by a newer simrate (file schema 9")
    out = tmp_path / "copy.simrate"
    salvage = simrate(capsys, "check", project, "--salvage", out)
    assert salvage.status == 2
    one_line_error(salvage.err, "made by a newer simrate", "leave it behind")
    assert not out.exists() and project.read_bytes() == before


def test_salvage_names_the_columns_it_does_not_know(capsys, project, tmp_path):
    conn = sqlite3.connect(project)
    conn.execute("ALTER TABLE items ADD COLUMN weight REAL")  # another tool's column
    conn.commit()
    conn.close()
    out = tmp_path / "copy.simrate"
    result = simrate(capsys, "check", project, "--salvage", out, "--json")
    assert result.status == 0, result.err
    left = result.json()["left_behind"]
    assert any("table items" in what and "weight" in what for what in left), left


def _study(path: Path) -> None:
    from simrate.core.team import web_study as web

    with Project.open(path) as opened:
        web.set_study(opened, "s1", per_task=2)


@pytest.mark.parametrize(("column", "value", "needle"), [
    ("per_task", 0, "per_task is 0"), ("per_item", "'x'", "per_item is 'x'"),
    ("lease_minutes", -1, "lease_minutes is -1"), ("checks", 2**40, "checks is"),
])
def test_damaged_web_study_rows_are_one_line_everywhere(capsys, project, column, value,
                                                        needle):
    _study(project)
    conn = sqlite3.connect(project)
    conn.execute(f"UPDATE web_studies SET {column} = {value}")
    conn.commit()
    conn.close()
    for args in (["crowd", "status", project], ["crowd", "study", project, "s1", "--close"],
                 ["crowd", "status", project, "--json"]):
        result = simrate(capsys, *args)
        assert result.status == 2, result.err
        one_line_error(result.err, "damaged project", needle, f"simrate check {project}")
    check = simrate(capsys, "check", project, "--json")
    assert check.status == 2
    assert any(needle in problem for problem in check.json()["problems"])


def test_check_knows_the_web_tables_columns(capsys, project):
    _study(project)
    conn = sqlite3.connect(project)
    conn.execute("ALTER TABLE web_tasks RENAME COLUMN expires_at TO expiry")
    conn.commit()
    conn.close()
    result = simrate(capsys, "check", project, "--json")
    assert result.status == 2
    assert "table web_tasks has no column expires_at (renamed to expiry?)" in \
        result.json()["problems"]


def _foreign_wal(project: Path, tmp_path: Path) -> Path:
    """Another project's -wal, left beside `project` (its writer died before a checkpoint)."""
    other = tmp_path / "other" / "o.simrate"
    other.parent.mkdir()
    new_project(other, n_items=2).close()
    code = ("import sqlite3, os, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('PRAGMA wal_autocheckpoint = 0'); c.execute('CREATE TABLE t (a)'); "
            "c.executemany('INSERT INTO t VALUES (?)', [('z' * 100,)] * 2000); c.commit(); "
            "os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(other)], check=True)
    wal = Path(f"{project}-wal")
    shutil.copyfile(f"{other}-wal", wal)
    return wal


def test_a_foreign_wal_beside_a_sound_file_is_told_apart_from_damage(capsys, tmp_path):
    project = tmp_path / "big.simrate"
    new_project(project, n_items=600).close()  # its pages and the other's do not fit
    wal = _foreign_wal(project, tmp_path)
    result = simrate(capsys, "check", project, "--json")
    assert result.status == 2
    (problem,) = result.json()["problems"]
    assert problem.startswith("the file itself is sound, but its -wal file")
    out = tmp_path / "copy.simrate"
    salvage = simrate(capsys, "check", project, "--salvage", out)
    assert salvage.status == 0, salvage.err
    assert "items 600" in salvage.out and f"left behind: the -wal file {wal}" in salvage.out
    with Project.open(out) as copy:
        assert copy.n_items == 600


def test_a_path_past_sqlites_limit_is_said_as_such_never_damaged(tmp_path):
    folder = tmp_path
    while len(os.fsencode(folder)) < SQLITE_PATH_MAX:
        folder = folder / ("d" * 100)
    folder.mkdir(parents=True)
    healthy = tmp_path / "healthy.simrate"
    new_project(healthy, n_items=3).close()
    shutil.copyfile(healthy, folder / "p.simrate")
    for args in (["info", "p.simrate"], ["check", "p.simrate"],
                 ["check", "p.simrate", "--salvage", "s.simrate"],
                 ["new", "q.simrate", "--scale", "clss"]):
        result = subprocess.run([sys.executable, "-m", "simrate", *args], cwd=folder,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, args
        line = one_line_error(result.stderr, "SQLite opens project files only up to",
                              "move the project")
        assert "damaged" not in line and "header" not in line
    assert sorted(p.name for p in folder.iterdir()) == ["p.simrate"]


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_folder_where_sqlite_keeps_its_journal_is_named(capsys, project, suffix):
    Path(f"{project}{suffix}").mkdir()
    result = simrate(capsys, "check", project)
    assert result.status == 2
    one_line_error(result.err, f"{project}{suffix} beside it is a folder", "move it")
