"""The New project dialog offers the scale the file's format implies (STS and PIT 0-5, CLSS
0-4) and, for generic pairs, the one last chosen for them."""

from __future__ import annotations

import pytest

from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.settings import LAST_SCALE
from simrate.gui.dialogs.new_project_dialog import NewProjectDialog
from simrate.gui.shell.main_window import MainWindow


def offered(qtbot, source, last: str = "") -> str:
    dialog = NewProjectDialog("", None, last)
    qtbot.addWidget(dialog)
    dialog.source_edit.setText(str(source))
    return dialog.scale_box.currentData()


@pytest.mark.parametrize("name, scale", [("STS.input.demo.txt", "sts"),
                                         ("tweets.data", "sts"),
                                         ("paragraph2sentence.sample.input.tsv", "clss")])
@pytest.mark.parametrize("last", ["", "clss", "sts"])
def test_the_format_decides_the_scale(qtbot, sample_data, name, scale, last):
    assert offered(qtbot, sample_data / name, last) == scale


@pytest.mark.parametrize("name", ["pairs.tsv", "pairs.csv", "pairs.xlsx"])
def test_generic_pairs_get_the_last_scale_used_for_them(qtbot, sample_data, name):
    assert offered(qtbot, sample_data / name) == "sts"  # nothing chosen yet
    assert offered(qtbot, sample_data / name, "clss") == "clss"
    assert offered(qtbot, sample_data / name, "sts") == "sts"


def test_the_window_remembers_the_scale_chosen_for_generic_pairs(qtbot, settings, tmp_path,
                                                                 sample_data, monkeypatch):
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    started, seen = [], []

    def run(dialog, source, choice):
        def fake_exec(self):
            self.source_edit.setText(str(source))
            seen.append(self.scale_box.currentData())
            if choice:
                self.scale_box.setCurrentIndex(self.scale_box.findData(choice))
            self.project_edit.setText(str(tmp_path / f"p{len(seen)}.simrate"))
            return NewProjectDialog.DialogCode.Accepted
        monkeypatch.setattr(NewProjectDialog, "exec", fake_exec)
        window.new_project_from_file()

    monkeypatch.setattr(window.imports, "start", started.append)
    run(window, sample_data / "pairs.tsv", "clss")
    assert settings.get(LAST_SCALE) == "clss"
    run(window, sample_data / "pairs.csv", None)
    assert seen == ["sts", "clss"]
    # a file whose format implies its scale leaves the generic choice alone
    run(window, sample_data / "STS.input.demo.txt", None)
    assert seen[-1] == "sts" and settings.get(LAST_SCALE) == "clss"
    assert [r.new_scale for r in started] == ["clss", "clss", "sts"]
