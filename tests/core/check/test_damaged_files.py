"""Damaged project files: every command says "damaged project" in one line naming the file and
the way out, and `simrate check` says what is damaged."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.check.integrity import find_problems
from simrate.core.project import Project
from tests.support.helpers import ROOT, one_line_error, run_cli
from tests.support.samples import copy_project, rated_sample

COMMANDS = (["info"], ["flagged"], ["agreement"], ["annotators"],
            ["export", "{out}", "--allow-unresolved"])


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A small sts project with three raters, all in one file (no -wal)."""
    return rated_sample(tmp_path_factory.mktemp("good"), one_file=True)


def copy(good: Path, folder: Path, name: str = "d.simrate") -> Path:
    return copy_project(good, folder, name)


def assert_damaged_everywhere(path: Path, tmp_path: Path) -> None:
    for command in COMMANDS:
        args = [part.format(out=tmp_path / "out.tsv") for part in command]
        result = run_cli(args[0], path, *args[1:])
        assert result.returncode == 2, (command, result.stderr)
        one_line_error(result.stderr, f"{path}:", "damaged project", f"simrate check {path}",
                       "--salvage")


def root_page(path: Path, table: str) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                            (table,)).fetchone()[0]
        return page, conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def test_a_sound_project_checks_clean(good):
    result = run_cli("check", good)
    assert result.returncode == 0, result.stderr
    assert "no damage found" in result.stdout


@pytest.mark.parametrize("table", ["ratings", "annotators"])
def test_an_overwritten_btree_page(good, tmp_path, table):
    path = copy(good, tmp_path)
    page, size = root_page(path, table)
    data = bytearray(path.read_bytes())
    data[(page - 1) * size:page * size] = b"A" * size
    path.write_bytes(bytes(data))
    assert_damaged_everywhere(path, tmp_path)
    result = run_cli("check", path)
    assert result.returncode == 2
    assert "malformed" in result.stdout or "btree" in result.stdout.lower()
    assert "--salvage" in result.stdout
    one_line_error(result.stderr, f"{path}:", "damaged project")


def test_a_text_that_is_not_utf8(good, tmp_path):
    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE items SET left = CAST(x'fffe41' AS TEXT) WHERE ord = 3")
    conn.execute("UPDATE annotators SET name = CAST(x'62ff' AS TEXT) WHERE id = 2")
    conn.commit()
    conn.close()
    assert_damaged_everywhere(path, tmp_path)
    problems = find_problems(path)
    assert any(p.startswith("items.left: 1 text(s) not valid UTF-8") for p in problems)
    assert any(p.startswith("annotators.name: 1 text(s)") for p in problems)


def test_a_text_of_the_items_alone_not_utf8(good, tmp_path):
    """Only the texts are damaged: info and flagged do not read them, export does."""
    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE items SET right = CAST(x'c328' AS TEXT)")
    conn.commit()
    conn.close()
    for args in (["export", tmp_path / "o.tsv", "--allow-unresolved"],
                 ["export", tmp_path / "o.jsonl", "--allow-unresolved"]):
        result = run_cli(args[0], path, *args[1:])
        assert result.returncode == 2, result.stderr
        one_line_error(result.stderr, f"{path}:", "damaged project", "not valid UTF-8")
    result = run_cli("check", path)
    assert result.returncode == 2 and "items.right: 20 text(s) not valid UTF-8" in result.stdout


def test_a_renamed_column(good, tmp_path):
    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE ratings RENAME COLUMN code TO kode")
    conn.commit()
    conn.close()
    assert_damaged_everywhere(path, tmp_path)
    result = run_cli("check", path, "--json")
    assert result.returncode == 2
    assert "table ratings has no column code (renamed to kode?)" in result.stdout


def test_random_damage_of_twenty_bytes(good, tmp_path):
    """Whatever 20 random bytes do, a command succeeds or says "damaged project"."""
    data = good.read_bytes()
    damaged = 0
    for seed in range(12):
        rng = random.Random(seed)
        spoilt = bytearray(data)
        for _ in range(20):
            spoilt[rng.randrange(100, len(spoilt))] = rng.randrange(256)
        path = tmp_path / f"r{seed}.simrate"
        path.write_bytes(bytes(spoilt))
        for args in (["info"], ["flagged"], ["agreement"], ["annotators"],
                     ["export", tmp_path / "o.tsv", "--allow-unresolved"], ["check"]):
            result = run_cli(args[0], path, *args[1:])
            assert result.returncode in (0, 2), (seed, args, result.stderr)
            if result.returncode == 2:
                damaged += 1
                line = one_line_error(result.stderr, f"{path}:")
                assert "damaged project" in line or "not a readable simrate project" in line
                assert f"simrate check {path}" in line or args == ["check"]
    assert damaged  # the damage was seen at least once


def test_check_of_a_missing_file(tmp_path):
    result = run_cli("check", tmp_path / "nothing.simrate")
    assert result.returncode == 2
    one_line_error(result.stderr, "no such project file")


def test_project_open_of_damaged_file_stays_one_line(good, tmp_path):
    """Opening through the API still raises (the CLI adds the way out)."""
    path = copy(good, tmp_path)
    page, size = root_page(path, "meta")
    data = bytearray(path.read_bytes())
    data[(page - 1) * size:page * size] = b"A" * size
    path.write_bytes(bytes(data))
    result = run_cli("info", path)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{path}:", f"simrate check {path}")
    with pytest.raises(SimrateError):
        Project.open(path)


def test_a_background_job_on_a_damaged_file_says_so(qtbot, good, tmp_path):
    """The window's background jobs turn such errors into the same message."""
    import queue

    from simrate.gui.base.jobs import Job

    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE items RENAME COLUMN genre TO genus")
    conn.commit()
    conn.close()

    def read(_job):
        with sqlite3.connect(path) as reader:
            return reader.execute("SELECT genre FROM items").fetchall()

    outbox: queue.SimpleQueue = queue.SimpleQueue()
    job = Job(read, outbox)
    job.files = [path]
    job.run()
    _, kind, (error,) = outbox.get_nowait()
    assert kind == "failed" and isinstance(error, SimrateError)
    assert "damaged project: table items has no column genre" in str(error)
    assert str(path) in str(error) and "OperationalError" not in str(error)
    unnamed = Job(read, outbox)  # a job that names no file still says what it is
    unnamed.run()
    _, kind, (error,) = outbox.get_nowait()
    assert "damaged project: no such column: genre" in str(error)
    assert "simrate check" in str(error)


def test_check_in_a_read_only_folder_is_no_damage(good, tmp_path):
    """A sound file that cannot be opened for writing is not called damaged."""
    import os
    import shutil
    import subprocess
    import sys

    folder = tmp_path / "ro"
    folder.mkdir()
    conn = sqlite3.connect(copy(good, folder, "p.simrate"))
    conn.execute("PRAGMA journal_mode = WAL")  # reading needs a -shm file the folder cannot hold
    conn.close()
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    script = (f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} "
              f"{folder} || exit 99; {sys.executable} -m app check {folder}/p.simrate")
    if shutil.which("unshare") is None:
        pytest.fail("needs unshare") if os.environ.get("CI") else pytest.skip("needs unshare")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([*prefix, "sh", "-c", script], env=env, capture_output=True,
                            text=True, timeout=120)
    if result.returncode == 99:
        message = "cannot make a read-only bind mount here"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)
    assert result.returncode == 0, result.stderr
    assert "no damage found" in result.stdout
