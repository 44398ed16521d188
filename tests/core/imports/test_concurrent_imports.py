"""Imports from several processes into one project: both succeed, nothing collides."""

from __future__ import annotations

import os
import subprocess
import sys

from simrate.core.project import Project
from tests.support.helpers import ROOT, make_items, new_project

IMPORTER = '''
import sys, time
from simrate.core.project import Project
from tests.support.helpers import make_items
path, prefix, go = sys.argv[1], sys.argv[2], float(sys.argv[3])
project = Project.open(path)  # opened, and its index read, before the other one writes
items = make_items(4000, prefix) if prefix != "both" else make_items(4000, "a")
while time.time() < go:
    time.sleep(0.001)
print(*project.import_items(items, prefix + ".tsv"))
'''


def _start(path, prefix, go, script):
    return subprocess.Popen([sys.executable, str(script), str(path), prefix, str(go)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_two_processes_importing_at_once_both_succeed(tmp_path):
    import time
    path = tmp_path / "p.simrate"
    new_project(path, 0).close()
    script = tmp_path / "importer.py"
    script.write_text(IMPORTER)
    go = time.time() + 3.0  # both have opened the project well before this
    procs = [_start(path, p, go, script) for p in ("a", "b", "both")]
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (_out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert err == ""
    counts = sorted(tuple(map(int, out.split())) for out, _ in results)
    # "a" and "both" import the same 4000 ids: one adds them, the other finds them present
    assert counts == [(0, 4000), (4000, 0), (4000, 0)]
    project = Project.open(path)
    assert project.n_items == 8000
    ords = [r[0] for r in project.team_tables.read("SELECT ord FROM items ORDER BY ord")]
    assert ords == list(range(8000))


def test_an_open_project_sees_items_another_process_imported(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 0).close()
    stale = Project.open(path)
    other = Project.open(path)
    other.import_items(make_items(10), "first.tsv")
    # the same ids: already present, not a constraint failure
    assert stale.import_items(make_items(10), "again.tsv") == (0, 10)
    # new ids: positions after the other's, not on top of them
    assert stale.import_items(make_items(5, "y"), "more.tsv") == (5, 0)
    assert stale.n_items == 15 and stale.has_item("x:3") and stale.has_item("y:5")
    stale.rate("x:3", "ann", 2.0)
    assert Project.open(path).rating("x:3", "ann") == 2.0
    assert Project.open(path).item_ids() == stale.item_ids()


def test_ratings_for_items_another_program_removed_meanwhile_are_refused_whole(tmp_path):
    """The ratings import checks its items as a batch (not per row by SQLite's foreign keys):
    items removed after this project read its index must still refuse the whole file, with
    nothing written and the project still usable."""
    from tests.core.frames import make_ratings

    path = tmp_path / "p.simrate"
    new_project(path, 0).close()
    with Project.open(path) as other:
        other.import_items(make_items(30, "keep"), "keep.tsv")
        other.import_items(make_items(20, "gone"), "gone.tsv")
    mine = Project.open(path)  # reads its index: 50 items
    with Project.open(path) as other:
        assert other.undo_import()["kind"] == "import_items"  # the 20 'gone' items leave
    rows = [(f"keep:{k}", "ann", 2.0) for k in range(1, 31)] + [("gone:3", "ann", 4.0)]
    try:
        mine.import_ratings(make_ratings(rows), "late.csv")
    except Exception as exc:  # noqa: BLE001 - the message is what the user sees
        message = str(exc)
    else:
        message = ""
    assert "removed from the project while it was being imported" in message
    assert "nothing was imported" in message
    with Project.open(path) as fresh:
        assert len(fresh.ratings()) == 0
        assert fresh.n_items == 30
    foreign_keys = "PRAGMA foreign_keys"  # off for the refused import only, on again after
    assert mine._conn.execute(foreign_keys).fetchone()[0] == 1
    mine.refresh()
    assert mine.import_ratings(make_ratings(rows[:30]), "again.csv")["added"] == 30
    assert mine._conn.execute(foreign_keys).fetchone()[0] == 1
    mine.close()
