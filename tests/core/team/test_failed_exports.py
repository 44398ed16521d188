"""A crowd export or a package that fails (a full disk) leaves the project as it was: no
batch recorded or replaced, no package logged, so the real batch's results still import."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from simrate.core.base.frames import item_frame
from simrate.core.project import Project
from tests.cli.test_crowd_e2e import turk_results
from tests.support.helpers import one_line_error, run_cli, run_cli_on_small_disk

N = 150


def items(start: int, n: int):
    ids = [f"MSRvid:{i}" for i in range(start, start + n)]
    return ids, item_frame({
        "item_id": ids, "left": [f"A man, number {i}, plays. " * 30 for i in range(n)],
        "right": [f"Someone plays {i}" for i in range(n)], "dataset": ["MSRvid"] * n,
        "genre": [""] * n,
        "reference": [float(i % 21) / 4 if i < 30 else np.nan for i in range(n)],
        "meta": [{} for _ in range(n)], "line": list(range(1, n + 1))})


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "sts.simrate"
    ids, frame = items(1, N)
    with Project.create(path, scale="sts") as opened:
        opened.import_items(frame, source="x.tsv")
    assert run_cli("checks", path, "--from-reference").returncode == 0
    return path, dict(zip(ids, np.round(np.linspace(0, 5, N) * 4) / 4, strict=True))


def batches(path) -> tuple[list[tuple], int]:
    """(every recorded slot, how many crowd_batch entries the change log holds)."""
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        slots = (conn.execute("SELECT * FROM crowd_tasks ORDER BY 1, 2, 3").fetchall()
                 if "crowd_tasks" in tables else [])
        logged = conn.execute("SELECT COUNT(*) FROM changes WHERE kind = 'crowd_batch'"
                              ).fetchone()[0]
    finally:
        conn.close()
    return slots, logged


EXPORT = ("--per-task", "5", "--checks", "1", "--seed", "7")


def test_a_first_export_to_a_full_disk_records_no_batch(project, tmp_path):
    path, _truth = project
    folder = tmp_path / "disk"
    folder.mkdir()
    proc, left = run_cli_on_small_disk(folder, 64, "crowd", "export", path,
                                       folder / "batch.csv", *EXPORT)
    assert proc.returncode == 2, proc.stderr
    one_line_error(proc.stderr, "batch.csv: ", "the disk is full")
    assert left == []
    assert batches(path) == ([], 0)


def test_a_failed_export_leaves_the_real_batch_and_its_results_import(project, tmp_path):
    path, truth = project
    real = tmp_path / "batch.csv"
    done = run_cli("crowd", "export", path, real, *EXPORT)
    assert done.returncode == 0, done.stderr
    before = batches(path)
    assert before[1] == 1 and before[0]
    # more items come in; the same settings would now cut another batch of the same name
    ids, frame = items(N + 1, 40)
    with Project.open(path) as opened:
        opened.import_items(frame, source="more.tsv")
    truth.update(dict.fromkeys(ids, 2.5))
    folder = tmp_path / "disk"
    folder.mkdir()
    proc, left = run_cli_on_small_disk(folder, 64, "crowd", "export", path,
                                       folder / "again.csv", *EXPORT)
    assert proc.returncode == 2 and "the disk is full" in proc.stderr, proc.stderr
    assert left == []
    assert batches(path) == before  # nothing recorded, nothing replaced
    # a device that cannot take the file: the same
    full = run_cli("crowd", "export", path, "/dev/full", *EXPORT)
    assert full.returncode == 2, full.stderr
    one_line_error(full.stderr, "/dev/full: ", "the disk is full")
    assert batches(path) == before
    results = tmp_path / "Batch_1_batch_results.csv"
    turk_results(real, truth, results)
    imported = run_cli("import", path, results)
    assert imported.returncode == 0, imported.stderr  # the slot check passes


def test_a_package_written_to_a_full_disk_is_not_logged(project, tmp_path):
    path, _truth = project
    folder = tmp_path / "disk"
    folder.mkdir()
    with Project.open(path) as opened:
        logged = len(opened.changes())
    proc, left = run_cli_on_small_disk(folder, 64, "package", path, folder / "ann.simrate",
                                       "--annotator", "ann")
    assert proc.returncode == 2, proc.stderr
    one_line_error(proc.stderr, "the disk is full")
    assert left == []
    with Project.open(path) as opened:
        assert len(opened.changes()) == logged
