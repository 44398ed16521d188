"""The export dialog: the warning about unresolved items, exporting, cancelling."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

from simrate.core.project import Project
from simrate.gui.dialogs import export_dialog as module
from simrate.gui.dialogs.export_dialog import ExportDialog
from tests.core.frames import make_items, make_rated_project, make_ratings


def open_dialog(qtbot, path, folder) -> ExportDialog:
    with Project.open(path) as project:
        scale = project.scale
    dialog = ExportDialog(path, scale, str(folder))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.unresolved is not None, timeout=10000)
    return dialog


@pytest.fixture
def unresolved_project(tmp_path):
    """Rated items (some flagged) plus two items nobody rated."""
    path = make_rated_project(tmp_path / "x.simrate")
    extra = make_items(14).iloc[12:]
    with Project.open(path) as project:
        project.import_items(extra, source="more.tsv")
        flagged = len(project.flagged_ids())
    return path, flagged


def test_warning_lists_flagged_and_unrated_items(qtbot, tmp_path, unresolved_project):
    path, flagged = unresolved_project
    dialog = open_dialog(qtbot, path, tmp_path)
    text = dialog.warning_label.text()
    assert f"{flagged} flagged items not adjudicated" in text
    assert "2 items with no rating" in text
    assert dialog.allow_check.isVisible()
    assert not dialog.export_button.isEnabled()
    dialog.allow_check.setChecked(True)
    assert dialog.export_button.isEnabled()


def test_export_anyway_writes_the_file_and_says_where(qtbot, tmp_path, unresolved_project):
    path, _ = unresolved_project
    dialog = open_dialog(qtbot, path, tmp_path)
    out = tmp_path / "gold.tsv"
    dialog.path_edit.setText(str(out))
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=10000)
    table = pd.read_csv(out, sep="\t")
    assert len(table) == 14 and table["gold"].isna().sum() == 2
    assert str(out) in dialog.result_label.text()
    assert dialog.close_button.isVisible()


def test_a_resolved_project_exports_without_a_tick(qtbot, tmp_path):
    path = make_rated_project(tmp_path / "r.simrate")
    with Project.open(path) as project:
        for item_id in project.flagged_ids():
            project.adjudicate(item_id, 2.0)
    dialog = open_dialog(qtbot, path, tmp_path)
    assert "All 12 items have a gold score" in dialog.warning_label.text()
    assert not dialog.allow_check.isVisible()
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("sts"))
    assert dialog.path_edit.text().endswith(".txt")
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=10000)
    lines = (tmp_path / "r.gold.txt").read_text().splitlines()
    assert len(lines) == 12 and all(len(line.split(".")[1]) == 3 for line in lines)


def test_pit_is_offered_only_on_a_zero_to_five_scale(qtbot, tmp_path):
    dialog = open_dialog(qtbot, make_rated_project(tmp_path / "c.simrate"), tmp_path)
    item = dialog.format_combo.model().item(dialog.format_combo.findData("pit"))
    assert not item.isEnabled()


def test_cancel_stops_the_export_and_keeps_the_old_file(qtbot, tmp_path, monkeypatch):
    path = make_rated_project(tmp_path / "k.simrate")
    out = tmp_path / "gold.tsv"
    out.write_text("an earlier export\n")
    started = threading.Event()

    def slow_export(project, target, fmt, allow, progress):
        started.set()
        for step in range(1000):
            threading.Event().wait(0.01)
            progress(step, 1000)  # raises once cancelled
        raise AssertionError("not cancelled")

    monkeypatch.setattr(module, "export_project", slow_export)
    dialog = open_dialog(qtbot, path, tmp_path)
    dialog.path_edit.setText(str(out))
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    assert started.wait(5)
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: dialog.job is None, timeout=10000)
    assert "cancelled" in dialog.result_label.text()
    assert out.read_text() == "an earlier export\n"


def test_a_refused_export_is_explained_in_the_dialog(qtbot, tmp_path):
    path = make_rated_project(tmp_path / "e.simrate")
    dialog = open_dialog(qtbot, path, tmp_path)
    dialog.path_edit.setText(str(tmp_path / "no such folder" / "gold.tsv"))
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.job is None and bool(dialog.result_label.text()),
                    timeout=10000)
    assert "does not exist" in dialog.result_label.text()
    assert dialog.report is None


def test_a_dataset_folder_is_chosen_with_a_folder_picker_and_written(qtbot, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QFileDialog

    path = make_rated_project(tmp_path / "d.simrate")
    dialog = open_dialog(qtbot, path, tmp_path)
    assert not dialog.dataset_box.isVisibleTo(dialog)
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("dataset"))
    assert dialog.dataset_box.isVisibleTo(dialog)
    assert dialog.path_edit.text() == str(tmp_path / "d-dataset")
    chosen = tmp_path / "published"
    chosen.mkdir()
    seen = []

    def pick() -> None:  # the folder picker is up: go to the folder and accept it
        picker = QApplication.activeModalWidget()
        seen.append(type(picker))
        picker.setDirectory(str(chosen))
        picker.accept()

    QTimer.singleShot(300, pick)
    dialog.browse()
    assert seen == [QFileDialog] and dialog.path_edit.text() == str(chosen)
    dialog.dataset_box.license_edit.setText("CC-BY-4.0")
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=20000)
    assert dialog.report.format == "dataset" and str(chosen) in dialog.result_label.text()
    assert sorted(p.name for p in chosen.iterdir()) == ["README.md", "croissant.json", "data"]
    card = (chosen / "README.md").read_text(encoding="utf-8")
    assert 'license: "cc-by-4.0"' in card and "rater-01" in card
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("tsv"))
    assert dialog.path_edit.text().endswith(".tsv")


def test_a_dataset_into_a_full_folder_is_refused_in_the_dialog(qtbot, tmp_path):
    path = make_rated_project(tmp_path / "f.simrate")
    dialog = open_dialog(qtbot, path, tmp_path)
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("dataset"))
    dialog.path_edit.setText(str(tmp_path))  # holds the project: not empty
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.job is None and bool(dialog.result_label.text()),
                    timeout=20000)
    assert "not empty" in dialog.result_label.text() and dialog.report is None


def test_a_long_export_counts_its_rows_on_the_bar(qtbot, tmp_path):
    """50,000 items: the real export reports each chunk, and the bar says the count."""
    path = tmp_path / "big.simrate"
    items = make_items(50_000)
    with Project.create(path, scale="clss", title="big") as project:
        project.import_items(items, source="items.tsv")
        project.import_ratings(make_ratings([("d:1", "ann", 1.0), ("d:2", "ann", 2.0)]),
                               source="ann.tsv")
    dialog = open_dialog(qtbot, path, tmp_path)
    seen = []
    dialog.progress.valueChanged.connect(lambda _v: seen.append(dialog.progress.text()))
    dialog.path_edit.setText(str(tmp_path / "gold.tsv"))
    dialog.allow_check.setChecked(True)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.job is None, timeout=60000)
    assert "Written" in dialog.result_label.text()
    assert "20,000 of 50,000 rows (40%)" in [t.split(" \u00b7 ")[0] for t in seen]
    assert seen[-1] == "50,000 of 50,000 rows (100%)"


def test_the_format_list_and_endings_are_the_registrys(qtbot, tmp_path):
    from simrate.formats.catalog.registry import WRITE

    dialog = open_dialog(qtbot, make_rated_project(tmp_path / "f.simrate"), tmp_path)
    combo = dialog.format_combo
    listed = [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]
    assert listed == [(fmt.listing, fmt.name) for fmt in WRITE]
    for fmt in WRITE:  # each choice puts the registry's ending on the suggested name
        combo.setCurrentIndex(combo.findData(fmt.name))
        name = Path(dialog.path_edit.text()).name
        assert name == ("f-dataset" if fmt.name == "dataset" else f"f.gold{fmt.ending}"), name
    # pyramid's is .tsv: the table its writer writes (the dialog once had it on its own)
    assert find_ending(dialog, "pyramid") == ".tsv"


def find_ending(dialog, name: str) -> str:
    """The ending the dialog suggests for a format, chosen from a plain file name."""
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("tsv"))
    dialog.path_edit.setText(str(Path(dialog.path_edit.text()).with_name("any.tsv")))
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(name))
    return Path(dialog.path_edit.text()).suffix
