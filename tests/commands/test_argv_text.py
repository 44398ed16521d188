"""Text options: argv is UTF-8 text (decoded once, refused in one line before anything is
written), `--X=--` is the text `--`, control and escape characters refused in stored texts
and never shown raw, a failed `new` leaves nothing, minutes and seconds in sane ranges."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT


def _one_line(result, status=2):
    assert result.status == status, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("simrate: error: "), result.err
    assert "Traceback" not in result.err
    return result.err


def test_a_title_that_is_not_utf8_is_refused_and_leaves_nothing(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    err = _one_line(simrate(capsys, "new", path, "--scale", "clss", "--title", "caf\udce9"))
    assert "--title: not UTF-8 text: 'caf\\xe9'" in err
    assert list(tmp_path.iterdir()) == []
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0  # no "already exists"


def test_every_argument_is_decoded_once_file_names_too(capsys, tmp_path):
    err = _one_line(simrate(capsys, "new", tmp_path / "caf\udce9.simrate", "--scale", "clss"))
    assert "argument 2: not UTF-8 text" in err and "give texts and file names in UTF-8" in err
    err = _one_line(simrate(capsys, "export", tmp_path / "p.simrate", tmp_path / "o",
                            "--format", "dataset", "--title=\udcff"))
    assert "--title: not UTF-8 text: '\\xff'" in err
    assert list(tmp_path.iterdir()) == []


def test_the_program_refuses_undecodable_bytes_in_a_real_argv(tmp_path):
    """Through the interpreter itself: bytes in argv become surrogate escapes."""
    code = "import sys; from simrate.cli import main; sys.exit(main())"
    result = subprocess.run([sys.executable, "-c", code, "new", b"p.simrate", "--scale",
                             "clss", "--title", b"caf\xe9"], cwd=tmp_path, capture_output=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_dash_dash_given_with_equals_is_the_text(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss", "--title=--").status == 0
    assert Project.open(path).title == "--"
    err = _one_line(simrate(capsys, "adjudicate", path, "x", "1", "--note=--"))
    assert "no item" in err
    assert "invalid choice: '--'" in _one_line(simrate(capsys, "flagged", path, "--rule=--"))
    assert "not a number" in _one_line(simrate(capsys, "flagged", path, "--threshold=--"))


@pytest.mark.parametrize("text", ["\x1b[31mred", "a\x1b]0;owned\x07", "x\x9b2J", "x\ny",
                                  "x" * 1001])
def test_titles_and_notes_refuse_controls_escapes_and_lengths(capsys, tmp_path, text):
    path = tmp_path / "p.simrate"
    _one_line(simrate(capsys, "new", path, "--scale", "clss", "--title", text))
    assert not path.exists()
    with pytest.raises(SimrateError):
        Project.create(path, title=text)
    assert list(tmp_path.iterdir()) == []
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0
    _one_line(simrate(capsys, "adjudicate", path, "x", "1", "--note", text))


def test_a_title_stored_before_is_never_shown_raw(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'title'", ("\x1b[2Jgone",))
    result = simrate(capsys, "info", path)
    assert "\x1b" not in result.out and "\\x1b[2Jgone" in result.out
    assert Project.open(path).title == "\\x1b[2Jgone"


def test_a_new_file_failing_half_way_leaves_nothing(tmp_path, monkeypatch):
    from simrate.core.data import store

    def fail(conn, meta):
        conn.execute("CREATE TABLE t (x)")
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "build_new", fail)
    with pytest.raises(SimrateError):
        Project.create(tmp_path / "p.simrate")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["crowd", "study", "{P}", "s", "--lease-minutes", "4.9e-324"],
    ["crowd", "study", "{P}", "s", "--lease-minutes", "1e9"],
    ["team", "sync", "{P}", "--wait", "1e308"],
    ["serve", "{P}", "--starts-per-ip", "1e-300"],
])
def test_minutes_and_seconds_lie_in_sane_ranges(capsys, tmp_path, argv):
    argv = [str(tmp_path / "p.simrate") if a == "{P}" else a for a in argv]
    assert "must be from" in _one_line(simrate(capsys, *argv))


def test_a_password_file_that_is_a_folder_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path))
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "0")
    err = _one_line(simrate(capsys, "team", "join", "postgresql://u@127.0.0.1:9/db",
                            tmp_path / "l.simrate"))
    assert "PGPASSFILE" in err
