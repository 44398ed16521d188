"""Importing other annotators' ratings: a preview (added/changed/unchanged, conflicts), then
a commit that the open window picks up."""

from __future__ import annotations

import pytest

from simrate.core.base.events import Reloaded
from simrate.core.project import Project
from simrate.core.team.packages import make_package
from simrate.gui.dialogs.ratings_import_dialog import ConflictModel, RatingsImportDialog
from simrate.services.imports.ratings_preview import RESOLVE_KEEP, preview_import
from tests.core.frames import make_rated_project, write_long


@pytest.fixture
def project_path(tmp_path):
    return make_rated_project(tmp_path / "i.simrate")


def test_dialog_previews_then_imports_keeping_the_projects_scores(qtbot, tmp_path,
                                                                    project_path):
    with Project.open(project_path) as project:
        held = project.rating("d:1", "ann")
    other = 4.0 if held != 4.0 else 0.0
    source = write_long(tmp_path / "r.csv", [("d:1", "ann", other, ""), ("d:6", "dan", 3.0, "")])
    dialog = RatingsImportDialog(project_path, organizer="org")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_source(source)
    qtbot.waitUntil(lambda: dialog.preview is not None, timeout=10000)
    text = dialog.summary_label.text()
    assert "<b>1</b> added" in text and "<b>1</b> conflict " in text + " "
    assert dialog.conflict_box.isVisible() and dialog.conflict_model.rowCount() == 1
    assert dialog.resolve() == RESOLVE_KEEP
    with qtbot.waitSignal(dialog.imported, timeout=10000):
        dialog.import_button.click()
    with Project.open(project_path) as project:
        assert project.rating("d:1", "ann") == held
        assert project.rating("d:6", "dan") == 3.0


def test_taking_the_files_scores_replaces_the_conflicting_ones(qtbot, tmp_path, project_path):
    source = write_long(tmp_path / "r.csv", [("d:1", "ann", 0.25, "")])
    dialog = RatingsImportDialog(project_path)
    qtbot.addWidget(dialog)
    dialog.set_source(source)
    qtbot.waitUntil(lambda: dialog.preview is not None, timeout=10000)
    dialog.theirs_radio.setChecked(True)
    with qtbot.waitSignal(dialog.imported, timeout=10000):
        dialog.import_button.click()
    with Project.open(project_path) as project:
        assert project.rating("d:1", "ann") == 0.25


def test_a_bad_file_is_explained_with_its_line(qtbot, tmp_path, project_path):
    source = write_long(tmp_path / "bad.csv", [("d:1", "dan", 1.0, ""), ("d:99", "dan", 1.0, "")])
    dialog = RatingsImportDialog(project_path)
    qtbot.addWidget(dialog)
    dialog.set_source(source)
    qtbot.waitUntil(lambda: "Cannot import" in dialog.summary_label.text(), timeout=10000)
    assert "bad.csv:3" in dialog.summary_label.text() and "d:99" in dialog.summary_label.text()
    assert not dialog.import_button.isEnabled()


def test_a_returned_package_is_previewed_and_merged(qtbot, tmp_path, project_path):
    with Project.open(project_path) as project:
        info = make_package(project, tmp_path / "eve.simrate", "eve")
    with Project.open(info.path) as package:
        package.rate("d:1", "eve", 2.0)
        package.rate("d:2", "eve", 3.0, note="unsure")
    dialog = RatingsImportDialog(project_path)
    qtbot.addWidget(dialog)
    dialog.set_source(info.path)
    qtbot.waitUntil(lambda: dialog.preview is not None, timeout=10000)
    assert dialog.preview.kind == "package" and dialog.preview.added == 2
    assert f"{info.items - 2:,} items of the package were left unrated" in \
        dialog.summary_label.text()
    with qtbot.waitSignal(dialog.imported, timeout=10000):
        dialog.import_button.click()
    assert "eve" in dialog.summary
    with Project.open(project_path) as project:
        assert project.rating("d:2", "eve") == 3.0


def test_an_open_project_picks_up_the_import(qtbot, tmp_path, project_path):
    with Project.open(project_path) as project:
        changes = []
        project.subscribe(changes.append)
        source = write_long(tmp_path / "r.csv", [("d:7", "dan", 1.0, "")])
        dialog = RatingsImportDialog(project_path)
        qtbot.addWidget(dialog)
        dialog.set_source(source)
        qtbot.waitUntil(lambda: dialog.preview is not None, timeout=10000)
        with qtbot.waitSignal(dialog.imported, timeout=10000):
            dialog.import_button.click()
        assert project.refresh()
        assert project.rating("d:7", "dan") == 1.0
        assert isinstance(changes[-1], Reloaded)


def test_conflict_model(qtmodeltester, tmp_path, project_path):
    source = write_long(tmp_path / "r.csv", [("d:1", "ann", 0.0, ""), ("d:2", "ann", 4.0, "")])
    model = ConflictModel()
    model.set_rows(preview_import(project_path, source).conflicts)
    qtmodeltester.check(model)
