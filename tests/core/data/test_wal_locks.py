"""No process of ours drops another connection's locks on a project file (issue 22, part 1).

SQLite keeps a WAL file beside a project while anyone has it open; the last connection to
close folds it into the file and deletes it, and a process knows it is the last when it can
lock the file exclusively. Closing any descriptor of a file drops every POSIX lock its
process holds on it, so a process that opens and closes the project by another route (a
header sniff, a copy, an input reader) leaves its own SQLite connection unprotected: the
next `simrate info` elsewhere deletes the WAL, this process goes on committing into a
deleted file, and a crash then loses every rating it called saved. These tests run real
processes and look at /proc/PID/fd for files deleted under them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.data.open_files import held_by_this_process
from simrate.core.project import Project
from simrate.core.team.package_file import read_package
from tests.support.helpers import ROOT, new_project, run_cli


def deleted_files(pid: int | str = "self") -> list[str]:
    """The files process `pid` holds open that are no longer in any folder."""
    found = []
    folder = Path(f"/proc/{pid}/fd")
    for entry in folder.iterdir():
        try:
            target = os.readlink(entry)
        except OSError:
            continue  # closed while we looked
        if target.endswith("(deleted)") and ".simrate" in target:
            found.append(target)
    return found


def other_process_reads(path: Path) -> None:
    """What a user runs beside an open window: `info`, `flagged`, `annotators`."""
    for command in ("info", "flagged", "annotators"):
        done = run_cli(command, path)
        assert done.returncode == 0, done.stderr


@pytest.fixture
def project_path(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    new_project(path, 5).close()
    return path


def test_second_project_in_the_same_process_keeps_the_first_ones_wal(project_path):
    held = Project.open(project_path)
    try:
        Project.open(project_path).close()
        other_process_reads(project_path)
        assert deleted_files() == []
        held.rate("x:1", "ana", 2.5)
        assert Path(f"{project_path}-wal").exists()
        done = run_cli("info", project_path, "--json")
        assert '"ratings": 1' in done.stdout  # another process sees the commit
    finally:
        held.close()


def test_reading_a_held_file_as_a_package_keeps_the_locks(project_path):
    held = Project.open(project_path)
    try:
        with pytest.raises(SimrateError):
            read_package(project_path)  # a plain project, not a package: refused
        other_process_reads(project_path)
        assert deleted_files() == []
    finally:
        held.close()


def test_the_project_is_refused_as_its_own_input(project_path, tmp_path):
    done = run_cli("import", project_path, project_path, "--format", "ratings")
    assert done.returncode == 2
    assert "is the project itself" in done.stderr
    assert "Traceback" not in done.stderr
    held = Project.open(project_path)
    try:
        from simrate.services.imports.machine_import import read_machine_frame

        with pytest.raises(SimrateError, match="is the project itself"):
            read_machine_frame(held, project_path, "gpt", "ratings")
        assert held_by_this_process(project_path)
        assert deleted_files() == []
    finally:
        held.close()
    assert not held_by_this_process(project_path)


CHILD = """
import sys
from simrate.core.project import Project
held = Project.open(sys.argv[1])
Project.open(sys.argv[1]).close()      # a second connection, opened and closed
print("ready", flush=True)
for line in sys.stdin:
    item, score = line.split()
    held.rate(item, "ana", float(score))
    print("saved", flush=True)
"""


def _start(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen([sys.executable, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def _expect(process: subprocess.Popen, word: str) -> str:
    line = process.stdout.readline()
    assert line.startswith(word), f"expected {word!r}, got {line!r}"
    return line


def test_kill_9_loses_nothing_acknowledged_while_others_open_and_close(project_path):
    child = _start(["-c", CHILD, str(project_path)])
    try:
        _expect(child, "ready")
        for item, score in (("x:1", "1.5"), ("x:2", "3"), ("x:3", "0.25")):
            other_process_reads(project_path)
            child.stdin.write(f"{item} {score}\n")
            child.stdin.flush()
            _expect(child, "saved")
        assert deleted_files(child.pid) == []
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    with Project.open(project_path) as project:
        assert [project.rating(f"x:{i}", "ana") for i in (1, 2, 3)] == [1.5, 3.0, 0.25]


def test_the_window_keeps_its_wal_and_every_saved_rating_survives_kill_9(project_path,
                                                                          tmp_path):
    window = _start(["-m", "tests.support.window_driver", str(project_path), "ana",
                     str(tmp_path / "settings.ini")])
    saved = []
    try:
        _expect(window, "ready")
        for digit in ("2", "3", "1"):
            other_process_reads(project_path)
            assert deleted_files(window.pid) == [], "the window lost its WAL"
            window.stdin.write(f"key {digit}\n")
            window.stdin.flush()
            _, item, score = _expect(window, "saved").split()
            saved.append((item, float(score)))
        other_process_reads(project_path)
        assert deleted_files(window.pid) == []
        time.sleep(0.2)
    finally:
        window.send_signal(signal.SIGKILL)
        window.wait()
    assert [score for _, score in saved] == [2.0, 3.0, 1.0]
    with Project.open(project_path) as project:
        for item, score in saved:
            assert project.rating(item, "ana") == score


def test_a_sample_built_meanwhile_is_never_replaced(tmp_path):
    from simrate.gui.base.sample import _publish_once

    target, built = tmp_path / "sample.simrate", tmp_path / ".built.simrate"
    new_project(target, 2).close()
    new_project(built, 3).close()
    before = target.stat().st_ino
    _publish_once(built, target)
    assert target.stat().st_ino == before  # the sample a window may have open stays
