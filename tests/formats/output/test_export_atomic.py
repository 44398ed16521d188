"""Atomic writes: a failed write never replaces a good file and leaves no temporary file."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.output.atomic import atomic_open, atomic_path


def test_success_replaces_and_leaves_nothing_else(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("old\n")
    with atomic_open(target) as fh:
        fh.write("new\r\nline\n")
    assert target.read_bytes() == b"new\r\nline\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"]


def test_exception_midway_keeps_old_file(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("good\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write("half")
            raise RuntimeError("disk on fire")
    assert target.read_text() == "good\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"]


def test_keyboard_interrupt_removes_temp(tmp_path):
    target = tmp_path / "out.xlsx"
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as temp:
            temp.write_bytes(b"partial")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_missing_folder(tmp_path):
    with pytest.raises(SimrateError, match="does not exist"):
        with atomic_open(tmp_path / "nope" / "out.tsv"):
            pass


def test_target_is_a_folder(tmp_path):
    with pytest.raises(SimrateError, match="is a folder"):
        with atomic_open(tmp_path):
            pass


def test_unwritable_folder_is_refused(tmp_path, monkeypatch):
    # root may write anywhere, so the permission answer is simulated
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(SimrateError, match="cannot write"):
        with atomic_open(tmp_path / "out.tsv"):
            pass
    assert list(tmp_path.iterdir()) == []


def test_really_read_only_folder(tmp_path):
    from tests.support.helpers import run_with_read_only_folder

    folder = tmp_path / "ro"
    folder.mkdir()
    code = ("from simrate.formats.output.atomic import atomic_open\n"
            "from simrate.core.base.errors import SimrateError\n"
            "try:\n"
            f"    with atomic_open({str(folder / 'out.tsv')!r}) as out:\n"
            "        out.write('x')\n"
            "except SimrateError as exc:\n"
            "    print(exc)\n")
    done = run_with_read_only_folder(folder, code)
    assert "cannot write" in done.stdout, done.stderr
    assert list(folder.iterdir()) == []


def test_new_file_gets_ordinary_permissions(tmp_path):
    # mkstemp creates 0600 files; an export should be readable like any other file
    umask = os.umask(0o022)
    try:
        with atomic_open(tmp_path / "out.tsv") as fh:
            fh.write("x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "out.tsv").stat().st_mode) == 0o644


def test_replaced_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("old")
    target.chmod(0o640)
    with atomic_open(target) as fh:
        fh.write("new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_os_error_while_writing_becomes_one_line_error(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("good")
    with pytest.raises(SimrateError, match="cannot write: the disk is full"):
        with atomic_open(target):
            raise OSError(28, "No space left on device")
    assert target.read_text() == "good"
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"]


def _drain(fifo) -> tuple[threading.Thread, list[bytes]]:
    """A reader of a named pipe in a thread of its own; what it read lands in the list."""
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, received


@pytest.mark.parametrize("writer", ["open", "path"])
def test_a_named_pipe_is_written_into_and_stays_a_pipe(tmp_path, writer):
    """`--out /dev/null` must not put a plain file in place of the device: a special target
    gets the bytes, keeps its kind, and its folder gets no temporary files."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, received = _drain(fifo)
    if writer == "open":
        with atomic_open(fifo) as fh:
            fh.write("a\tb\n")
    else:
        with atomic_path(fifo) as temp:
            temp.write_bytes(b"a\tb\n")
    reader.join(10)
    assert received == [b"a\tb\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_the_xlsx_report_can_go_to_a_named_pipe(tmp_path):
    from simrate.services.exports.export import export_project
    from tests.formats.spreadsheet.test_export_xlsx import make_project, random_ratings

    project = make_project(tmp_path / "p.simrate", texts=[f"text {i}" for i in range(20)],
                           ratings=random_ratings(20))
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "report.xlsx"
    os.mkfifo(fifo)
    reader, received = _drain(fifo)
    export_project(project, fifo, allow_unresolved=True)
    project.close()
    reader.join(30)
    assert received and received[0].startswith(b"PK")  # a zip file came through
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in out.iterdir()] == ["report.xlsx"]
