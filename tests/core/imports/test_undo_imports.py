"""Undoing imports leaves nothing of them, in whatever order they are undone."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.support.helpers import new_project, run_cli
from tests.support.samples import held, ratings_file


@pytest.fixture
def files(tmp_path):
    """ann rated x:1 by hand; r1 rates x:1..x:3 (replacing the hand rating); r2 rates
    x:2, x:3 again (replacing r1's) and x:4."""
    path = tmp_path / "p.simrate"
    new_project(path, n_items=4).close()
    with Project.open(path) as project:
        project.rate("x:1", "ann", 0.0)
    r1 = ratings_file(tmp_path / "r1.csv", [("x:1", "ann", 1), ("x:2", "ann", 1),
                                            ("x:3", "bob", 1)])
    r2 = ratings_file(tmp_path / "r2.csv", [("x:2", "ann", 2), ("x:3", "bob", 2),
                                            ("x:4", "bob", 2)])
    for source in (r1, r2):
        done = run_cli("import", path, source)
        assert done.returncode == 0, done.stderr
    return path


def test_undoing_both_imports_in_turn_leaves_nothing_of_them(files):
    first = run_cli("import", files, "--undo")
    assert first.returncode == 0, first.stderr
    assert held(files) == {("x:1", "ann"): 1.0, ("x:2", "ann"): 1.0, ("x:3", "bob"): 1.0}
    second = run_cli("import", files, "--undo")
    assert second.returncode == 0, second.stderr
    # what stands is what stood before r1: the hand rating only
    assert held(files) == {("x:1", "ann"): 0.0}


def test_undoing_the_older_import_first_leaves_nothing_of_it(files):
    with Project.open(files) as project:
        r1 = int(project.changes().query("kind == 'import_ratings'")["id"].iloc[0])
    assert run_cli("import", files, "--undo", r1).returncode == 0
    # r2's rows stand; r1's row that r2 did not replace is gone, the hand rating back
    assert held(files) == {("x:1", "ann"): 0.0, ("x:2", "ann"): 2.0, ("x:3", "bob"): 2.0,
                           ("x:4", "bob"): 2.0}
    assert run_cli("import", files, "--undo").returncode == 0
    assert held(files) == {("x:1", "ann"): 0.0}  # undoing r2 brings back nothing of r1


def test_items_in_a_recorded_crowd_batch_are_not_undone(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, n_items=6).close()
    done = run_cli("crowd", "export", path, tmp_path / "batch.csv", "--per-task", "3")
    assert done.returncode == 0, done.stderr
    refused = run_cli("import", path, "--undo")
    assert refused.returncode == 2, refused.stderr
    assert "cannot undo this import: some of its items have ratings or other work since" \
        in refused.stderr and "FOREIGN KEY" not in refused.stderr
    with Project.open(path) as project:
        assert project.n_items == 6
