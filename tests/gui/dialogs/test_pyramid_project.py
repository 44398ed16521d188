"""The new-project dialog on pyramid files: choices, preview, and the import it starts."""

from __future__ import annotations

import shutil

import pytest

import simrate.gui.shell.main_window as main_window_module
from simrate.formats.pyramids.pyramid_project import read_pyramid_items
from simrate.gui.base.context import ApplicationContext
from simrate.gui.dialogs.new_project_dialog import NewProjectDialog, quoted_paths, source_paths
from simrate.gui.shell.main_window import MainWindow


@pytest.fixture
def dialog(qtbot, tmp_path):
    """A shown new-project dialog."""
    shown = NewProjectDialog(str(tmp_path))
    qtbot.addWidget(shown)
    shown.show()
    return shown


def choose(qtbot, dialog, paths) -> None:
    """Name the files in the dialog and wait for the preview."""
    dialog.source_edit.setText(quoted_paths([str(p) for p in paths]))
    qtbot.waitUntil(lambda: not dialog.pyramid_box.counting, timeout=10000)


def test_several_quoted_paths_are_read_back_and_one_path_stays_as_it_is():
    paths = ["/data/a b.pyr", "/data/c.pyr"]
    assert [str(p) for p in source_paths(quoted_paths(paths))] == paths
    assert [str(p) for p in source_paths("/data/one file.tsv")] == ["/data/one file.tsv"]


def test_pyramid_choices_show_only_for_pyramid_files(dialog, sample_data):
    dialog.source_edit.setText(str(sample_data / "pairs.tsv"))
    assert not dialog.pyramid_box.isVisible()
    dialog.source_edit.setText(str(sample_data / "D9901.pyr"))
    assert dialog.pyramid_box.isVisible()


def test_the_preview_counts_what_each_choice_would_import(qtbot, dialog, sample_data):
    source = sample_data / "D9901.pyr"
    choose(qtbot, dialog, [source])
    box = dialog.pyramid_box
    balanced = read_pyramid_items(source)
    assert box.items() == len(balanced)
    assert f"= {len(balanced):,} items to rate" in box.preview_label.text()
    box.negatives_spin.setValue(2)
    assert box.items() == len(read_pyramid_items(source, negatives=2))
    box.all_check.setChecked(True)
    assert box.items() == len(read_pyramid_items(source, negatives="all"))
    assert not box.negatives_spin.isEnabled()
    box.test_box.setCurrentIndex(box.test_box.findData("ranking"))
    ranking = read_pyramid_items(source, test="ranking")
    assert box.items() == len(ranking)
    assert "ranking questions" in box.preview_label.text()
    box.seed_spin.setValue(9)
    request = dialog.request()
    assert request.fmt == "pyramid"
    assert dict(request.options) == {"test": "ranking", "negatives": "all", "seed": 9}


def test_two_files_of_one_topic_are_refused_before_import(qtbot, dialog, sample_data, tmp_path):
    copy = tmp_path / "again.pyr"
    shutil.copy(sample_data / "D9901.pyr", copy)
    choose(qtbot, dialog, [sample_data / "D9901.pyr", copy])
    assert "D9901" in dialog.problem() and "same pyramid" in dialog.problem()


def test_a_broken_pyramid_file_is_named_in_the_preview(qtbot, dialog, tmp_path):
    broken = tmp_path / "D0000.pyr"
    broken.write_text("<pyramid><text><line>a</line></text>")
    choose(qtbot, dialog, [broken])
    assert str(broken) in dialog.problem()


def test_several_files_are_for_pyramids_only(dialog, sample_data):
    dialog.source_edit.setText(quoted_paths([str(sample_data / "pairs.tsv"),
                                             str(sample_data / "D9901.pyr")]))
    assert "pyramid files" in dialog.problem()


@pytest.mark.realdata
def test_from_the_dialog_on_the_four_real_files_to_rating_a_pair(qtbot, settings, realdata,
                                                                  tmp_path, monkeypatch):
    # "who is rating?" is answered 'carol', as a new user would type a name
    monkeypatch.setattr(main_window_module, "ask_annotator", lambda *a, **k: "carol")
    context = ApplicationContext(settings)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.show()
    dialog = NewProjectDialog(str(tmp_path), window)
    qtbot.addWidget(dialog)
    files = sorted((realdata / "pyramid").glob("*.pyr"))
    choose(qtbot, dialog, files)
    dialog.project_edit.setText(str(tmp_path / "pyramids.simrate"))
    dialog.name_edit.setText("carol")  # who is rating, asked with the file
    expected = dialog.pyramid_box.items()
    assert dialog.problem() == "" and expected == 702  # 351 paraphrases, 351 drawn
    with qtbot.waitSignal(window.imports.finished, timeout=20000):
        window.imports.start(dialog.request())
    project = context.project
    assert project is not None and project.n_items == expected
    labels = [m["label"] for m in project.items()["meta"]]
    assert sum(labels) * 2 == len(labels)  # balanced: one non-paraphrase per paraphrase
    assert set(project.items()["dataset"]) == {"D0614", "D0631", "D0701", "D0703-A"}
    assert context.session.current_id() == project.items()["item_id"].iloc[0]
    context.close_project()
