"""Stored settings that are damaged or out of range (meta values, thresholds), and a WAL
project in a read-only folder: exit 2 and one line naming the file, no traceback."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error, run_on_small_disk


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("schema_version", "abc", "schema_version is 'abc', not a whole number"),
    ("schema_version", "1.5", "schema_version is '1.5', not a whole number"),
    ("scale", "{not json", "the stored scale is not a JSON object"),
    ("scale", "[1, 2]", "the stored scale is not a JSON object"),
    ("threshold", "abc", "threshold is 'abc', not a positive number"),
    ("threshold", "inf", "threshold is 'inf', not a positive number"),
    ("threshold", "-1", "threshold is '-1', not a positive number"),
])
def test_damaged_meta_values(capsys, tmp_path, key, value, needle):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    conn.commit()
    conn.close()
    for command in ("info", "flagged", "agreement"):
        result = simrate(capsys, command, path)
        assert result.status == 2
        one_line_error(result.err, f"{path}:", "damaged project", needle)


@pytest.mark.parametrize("given", ["inf", "-inf", "nan", "1e400", "-1", "0"])
def test_flagged_threshold_must_be_a_positive_finite_number(capsys, tmp_path, given):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    result = simrate(capsys, "flagged", path, f"--threshold={given}")
    assert result.status == 2
    line = one_line_error(result.err, "threshold")
    assert given.lstrip("-") in line


@pytest.mark.parametrize("points", [float("inf"), float("nan"), -1.0, 0.0])
def test_project_threshold_refuses_non_finite_and_non_positive(tmp_path, points):
    project = new_project(tmp_path / "p.simrate")
    with pytest.raises(SimrateError, match="threshold must be a positive number"):
        project.set_threshold(points)
    assert Project.open(project.path).threshold == 1.0


READ_ONLY = '''
import json, subprocess, sys
from pathlib import Path
folder = Path(sys.argv[1])
subprocess.run(["cp", sys.argv[2], str(folder)], check=True)
subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
path = folder / "p.simrate"
for args in (["info", str(path), "--json"], ["adjudicate", str(path), "x:1", "2"]):
    proc = subprocess.run([sys.executable, "-m", "simrate", *args], capture_output=True, text=True)
    print(json.dumps([proc.returncode, proc.stdout, proc.stderr]))
'''


def test_wal_project_in_a_read_only_folder_reads_and_refuses_writes(tmp_path):
    source = tmp_path / "p.simrate"
    project = new_project(source)
    project.rate("x:1", "ann", 1.0)
    project.close()  # the last connection folds the WAL in and removes -wal and -shm
    assert not (tmp_path / "p.simrate-wal").exists()
    folder = tmp_path / "ro"
    folder.mkdir()
    script = tmp_path / "ro.py"
    script.write_text(READ_ONLY)
    proc, _ = run_on_small_disk(folder, 1024, [sys.executable, str(script), str(folder),
                                               str(source)])
    assert proc.returncode == 0, proc.stderr
    info, write = (json.loads(line) for line in proc.stdout.strip().splitlines())
    assert info[0] == 0 and json.loads(info[1])["ratings"] == 1, info
    assert write[0] == 2, write
    one_line_error(write[2], "p.simrate: ", "read-only")
