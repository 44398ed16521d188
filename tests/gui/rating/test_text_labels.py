"""The headings of the two texts say "larger" and "smaller" only where the data says which
text is larger (CLSS); ranking questions read "Question" and "Candidate"; else first and
second, whatever the scale."""

from __future__ import annotations

from PySide6.QtCore import Qt

from simrate.cli import main
from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.shell.main_window import MainWindow
from simrate.gui.widgets.text_pane import pair_labels


def test_pair_labels():
    assert pair_labels("clss", "paragraph2sentence") == ("Larger text (paragraph)",
                                                         "Smaller text (sentence)")
    assert pair_labels("clss", "alpha") == ("First text", "Second text")
    assert pair_labels("clss", "") == ("First text", "Second text")
    assert pair_labels("sts", "MSRvid") == ("First text", "Second text")
    assert pair_labels("clss", "D0901", {"test": "ranking"}) == ("Question", "Candidate")
    assert pair_labels("sts", "D0901", {"left_label": "Summary", "right_label": "Contributor"}
                       ) == ("Summary", "Contributor")


def open_window(qtbot, settings, path) -> MainWindow:
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    window.show()
    assert window.open_project(str(path), annotator="alice")
    return window


def headings(window) -> tuple[str, str]:
    texts = window.rating_panel.texts
    return texts.left_pane.heading.text(), texts.right_pane.heading.text()


def new_project(tmp_path, scale: str, source, *options: str):
    path = tmp_path / "p.simrate"
    assert main(["new", str(path), "--scale", scale]) == 0
    assert main(["import", str(path), str(source), *options]) == 0
    return path


def test_generic_pairs_on_the_clss_scale_are_first_and_second(qtbot, settings, tmp_path,
                                                              sample_data):
    window = open_window(qtbot, settings, new_project(tmp_path, "clss",
                                                      sample_data / "pairs.tsv"))
    assert headings(window) == ("First text", "Second text")
    model = window.item_list.model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in (3, 4)] == ["First text", "Second text"]
    window.context.close_project()


def test_clss_data_names_the_larger_text(qtbot, settings, tmp_path, sample_data):
    window = open_window(qtbot, settings, new_project(
        tmp_path, "clss", sample_data / "paragraph2sentence.sample.input.tsv"))
    assert headings(window) == ("Larger text (paragraph)", "Smaller text (sentence)")
    window.context.close_project()


def test_ranking_questions_read_question_and_candidate(qtbot, settings, tmp_path,
                                                       sample_data):
    path = new_project(tmp_path, "clss", sample_data / "D9901.pyr", "--test", "ranking")
    with Project.open(path) as project:
        assert project.items()["meta"].iloc[0]["test"] == "ranking"
    window = open_window(qtbot, settings, path)
    assert headings(window) == ("Question", "Candidate")
    window.context.close_project()
