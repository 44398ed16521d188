"""Previewing a ratings import: what would be added, changed, left alone, or conflict."""

from __future__ import annotations

from simrate.core.project import Project
from simrate.services.imports.ratings_preview import preview_import
from tests.core.frames import make_rated_project, write_long


def test_preview_counts_added_changed_unchanged_and_conflicts(tmp_path):
    project_path = make_rated_project(tmp_path / "i.simrate")
    with Project.open(project_path) as project:
        held = project.rating("d:1", "ann")
        other = 4.0 if held != 4.0 else 0.0
        same_2 = project.rating("d:2", "ann")
        same_3 = project.rating("d:3", "ann")
    source = write_long(tmp_path / "r.csv", [
        ("d:1", "ann", other, ""),             # conflict: another score
        ("d:2", "ann", same_2, "a new note"),  # changed: same score, a note added
        ("d:3", "ann", same_3, ""),            # unchanged
        ("d:4", "dan", 1.5, ""), ("d:5", "dan", 2.0, "")])  # added, new annotator
    preview = preview_import(project_path, source)
    assert (preview.added, preview.changed, preview.unchanged) == (2, 1, 1)
    assert [(c.item_id, c.annotator) for c in preview.conflicts] == [("d:1", "ann")]
    assert preview.new_annotators == ["dan"]
    with Project.open(project_path) as project:
        assert project.rating("d:4", "dan") is None  # a preview writes nothing
