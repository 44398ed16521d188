"""Undoing an import over a newer value is refused whole (issue 42): on a plain file, when
another window or program changed (or cleared) a rating the import wrote, `simrate import
--undo` changes nothing and says in one line which values are newer; with nothing newer
(or a newer value of another rater) the undo goes ahead as before."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from tests.core.frames import make_ratings
from tests.core.test_undo_over_newer import elsewhere
from tests.support.helpers import new_project


@pytest.fixture
def project(tmp_path):
    project = new_project(tmp_path / "p.simrate", n_items=6)
    yield project
    project.close()


def _import(project, rows) -> None:
    project.import_ratings(make_ratings(rows), "more.csv")


def _state(project) -> list[tuple]:
    return sorted(project.ratings()[["item_id", "annotator", "score"]].itertuples(index=False))


def test_an_undo_over_a_newer_rating_is_refused_and_changes_nothing(project):
    _import(project, [(f"x:{i}", "ann", 1.0) for i in range(1, 6)])
    elsewhere(project.path, "project.rate('x:2', 'ann', 4.0)")
    project.refresh()
    before, log = _state(project), len(project.changes())
    with pytest.raises(SimrateError) as refused:
        project.undo_import()
    message = refused.value.message
    assert "cannot be undone" in message and "1 of the ratings it wrote was changed since" \
        in message and "ann's rating of 'x:2' (now 4)" in message
    assert "nothing was changed" in message and "\n" not in message
    assert _state(project) == before and len(project.changes()) == log


def test_an_undo_over_a_newer_clear_of_a_replaced_rating_is_refused(project):
    project.rate("x:1", "ann", 0.0)
    _import(project, [("x:1", "ann", 2.0), ("x:3", "ann", 3.0)])
    elsewhere(project.path, "project.rate('x:1', 'ann', None)")
    project.refresh()
    with pytest.raises(SimrateError, match=r"ann's rating of 'x:1' \(cleared\)"):
        project.undo_import()
    assert project.rating("x:1", "ann") is None and project.rating("x:3", "ann") == 3.0


def test_the_command_line_refuses_in_one_line(project, tmp_path):
    import subprocess
    import sys

    _import(project, [(f"x:{i}", "ann", 1.0) for i in range(1, 6)])
    project.rate("x:4", "ann", 3.0)  # this window's own later edit counts as well
    project.close()
    done = subprocess.run([sys.executable, "-m", "simrate", "import", str(project.path),
                           "--undo"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "ratings removed" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simrate: error: ") and \
        "ann's rating of 'x:4' (now 3)" in lines[0], done.stderr


def test_with_nothing_newer_the_undo_goes_ahead(project):
    _import(project, [(f"x:{i}", "ann", 1.0) for i in range(1, 4)])
    project.rate("x:1", "bob", 4.0)  # another rater's rating of the same item
    done = project.undo_import()
    assert done["removed"] == 3
    assert _state(project) == [("x:1", "bob", 4.0)]


def test_keep_newer_undoes_the_rest_and_says_what_stayed(project):
    _import(project, [(f"x:{i}", "ann", 1.0) for i in range(1, 6)])
    project.close()
    elsewhere(project.path, "project.rate('x:2', 'ann', 4.0)")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "simrate", "import", str(project.path),
                           "--undo", "--keep-newer"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 ratings removed" in done.stdout and "1 newer rating kept" in done.stdout
    from simrate.core.project import Project

    with Project.open(project.path) as again:
        assert _state(again) == [("x:2", "ann", 4.0)]
