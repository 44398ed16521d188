"""Exports to a full disk: one line saying so, no traceback, no leftover files."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.support.helpers import make_items, one_line_error, run_cli_on_small_disk


@pytest.fixture(scope="module")
def big_project(tmp_path_factory):
    """A project whose exports need far more than 64 KiB, with every item rated."""
    path = tmp_path_factory.mktemp("big") / "p.simrate"
    project = Project.create(path)
    items = make_items(3000)
    items["left"] = [f"left text {i} " * 20 for i in range(3000)]
    project.import_items(items)
    from simrate.core.base.frames import rating_frame
    ids = project.item_ids()
    project.import_ratings(rating_frame({
        "item_id": ids * 2, "annotator": ["ann"] * 3000 + ["bob"] * 3000,
        "score": [1.0] * 6000, "note": ["a note"] * 6000, "line": list(range(6000))}))
    project.close()
    return path


@pytest.mark.parametrize("fmt", ["xlsx", "tsv", "csv", "jsonl"])
def test_export_to_a_full_disk(tmp_path, big_project, fmt):
    folder = tmp_path / "disk"
    folder.mkdir()
    out = folder / f"gold.{fmt}"
    proc, left = run_cli_on_small_disk(folder, 64, "export", big_project, out)
    assert proc.returncode == 2, proc.stderr
    one_line_error(proc.stderr, f"{out}: ", "the disk is full")
    assert left == []  # no .part file, no scratch file beside the target


def test_a_dataset_folder_to_a_full_disk_leaves_no_folder(tmp_path, big_project):
    folder = tmp_path / "disk"
    folder.mkdir()
    out = folder / "published"
    proc, left = run_cli_on_small_disk(folder, 64, "export", big_project, out, "--format",
                                       "dataset")
    assert proc.returncode == 2, proc.stderr
    one_line_error(proc.stderr, f"{out}: ", "the disk is full")
    assert left == []  # neither the folder nor its hidden temporary one
