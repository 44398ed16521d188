"""Killed exports leave nothing that the next export does not sweep away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from simrate.core.base.frames import rating_frame
from simrate.core.project import Project
from simrate.formats.output.leftovers import temp_name
from simrate.services.exports.export import export_project
from tests.support.helpers import ROOT, make_items


def _big_project(path):
    project = Project.create(path)
    items = make_items(20000)
    items["left"] = [f"left text {i} " * 10 for i in range(20000)]
    project.import_items(items)
    ids = project.item_ids()
    project.import_ratings(rating_frame({
        "item_id": ids * 2, "annotator": ["ann"] * 20000 + ["bob"] * 20000,
        "score": [1.0] * 40000, "note": [""] * 40000, "line": list(range(40000))}))
    return project


def _kill_while_writing(project_path, out, system_temp):
    """Start an export and kill -9 it once its scratch folder exists."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(system_temp)}
    proc = subprocess.Popen([sys.executable, "-m", "simrate", "export", str(project_path),
                             str(out)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        scratch = [p for p in out.parent.iterdir() if ".simrate-scratch-" in p.name]
        if scratch and any(scratch[0].iterdir()):
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def test_killed_xlsx_export_leftovers_are_named_and_swept(tmp_path):
    project = _big_project(tmp_path / "p.simrate")
    system_temp = tmp_path / "systemp"
    system_temp.mkdir()
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "gold.xlsx"
    for _ in range(2):
        _kill_while_writing(project.path, out, system_temp)
    left = sorted(p.name for p in folder.iterdir())
    assert left and not out.exists()  # each run swept the one before; one is left
    assert all(name.startswith(".gold.xlsx.simrate-") for name in left), left
    assert list(system_temp.iterdir()) == []  # nothing in the system temp folder
    export_project(project, out)
    assert sorted(p.name for p in folder.iterdir()) == ["gold.xlsx"]


def test_running_exports_and_other_machines_files_are_left_alone(tmp_path):
    project = Project.create(tmp_path / "p.simrate")
    project.import_items(make_items(3))
    out = tmp_path / "gold.tsv"
    mine = temp_name(out, "export")  # this process is alive: an export still running
    mine.write_text("partial")
    other_host = tmp_path / ".gold.tsv.simrate-export-zzzzzz-1-abcdef.part"
    other_host.write_text("partial")
    legacy_old = tmp_path / ".gold.tsv.k3j_9x2a.part"
    legacy_old.write_text("partial")
    os.utime(legacy_old, (time.time() - 3 * 86400,) * 2)
    legacy_new = tmp_path / ".gold.tsv.q8w7e6r5.part"
    legacy_new.write_text("partial")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    killed = mine.with_name(mine.name.replace(f"-{os.getpid()}-", f"-{dead}-"))
    killed.write_text("partial")
    export_project(project, out, allow_unresolved=True)
    assert mine.exists() and other_host.exists() and legacy_new.exists()
    assert not killed.exists() and not legacy_old.exists()
