"""The evaluation window on small files: the table, undefined values, TSV on the clipboard."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from simrate.gui.dialogs.evaluation_window import (
    TOTAL_ROW,
    EvaluationTableModel,
    EvaluationWindow,
    FilePairsModel,
)


def write_scores(path, scores) -> str:
    path.write_text("".join(f"{s}\n" for s in scores), encoding="utf-8")
    return str(path)


@pytest.fixture
def window(qtbot):
    widget = EvaluationWindow()
    qtbot.addWidget(widget)
    widget.show()
    return widget


def run(qtbot, window):
    window.evaluate()
    qtbot.waitUntil(lambda: window.report is not None or "Cannot" in
                    window.status_label.text(), timeout=10000)


def gold_scores(sample_data) -> np.ndarray:
    return np.loadtxt(sample_data / "STS.gs.demo.txt")


def test_sts_table_shows_pearson_and_totals(qtbot, window, sample_data, tmp_path):
    gold = gold_scores(sample_data)
    system = gold * 0.5 + np.arange(len(gold)) * 0.1  # related, not equal
    window.set_task("sts")
    window.add_pair(sample_data / "STS.gs.demo.txt", write_scores(tmp_path / "run.txt", system))
    run(qtbot, window)
    model = window.table_model
    assert model.rowCount() == 2  # the dataset, then all datasets
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Dataset", "Pairs", "Pearson", "Spearman", "ALL", "ALLnrm", "Mean"]
    expected = np.corrcoef(gold, system)[0, 1]
    assert model.index(0, 2).data() == f"{expected:.4f}"
    assert model.index(0, 1).data() == str(len(gold))
    assert model.index(1, 0).data() == TOTAL_ROW
    assert model.index(1, 4).data() == f"{expected:.4f}"  # ALL over one dataset
    assert model.index(0, 4).data() == ""  # totals only on the totals row


def test_copy_puts_tsv_on_the_clipboard(qtbot, window, sample_data, tmp_path):
    gold = gold_scores(sample_data)
    window.set_task("sts")
    window.add_pair(sample_data / "STS.gs.demo.txt", write_scores(tmp_path / "run.txt",
                                                                    gold[::-1]))
    run(qtbot, window)
    window.copy_button.click()
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[0].split("\t") == ["Dataset", "Pairs", "Pearson", "Spearman", "ALL", "ALLnrm",
                                    "Mean"]
    first = lines[1].split("\t")
    assert float(first[2]) == pytest.approx(np.corrcoef(gold, gold[::-1])[0, 1], abs=1e-4)
    assert len(lines) == 3


def test_an_undefined_measure_shows_its_reason(qtbot, window, sample_data, tmp_path):
    gold = gold_scores(sample_data)
    window.set_task("sts")
    window.add_pair(sample_data / "STS.gs.demo.txt",
                    write_scores(tmp_path / "flat.txt", [2.0] * len(gold)))
    run(qtbot, window)
    index = window.table_model.index(0, 2)
    assert index.data() == "n/a"
    assert "constant" in index.data(3)  # ToolTipRole
    assert "\t\t" in window.table_model.to_tsv()  # undefined is an empty TSV field


def test_a_bad_system_file_is_reported(qtbot, window, sample_data, tmp_path):
    window.set_task("sts")
    window.add_pair(sample_data / "STS.gs.demo.txt", write_scores(tmp_path / "short.txt", [1.0]))
    run(qtbot, window)
    assert "Cannot evaluate" in window.status_label.text()
    assert "short.txt" in window.status_label.text()
    assert window.report is None and not window.copy_button.isEnabled()


def test_clss_sum_of_pearson(qtbot, window, sample_data, tmp_path):
    gold = np.loadtxt(sample_data / "paragraph2sentence.sample.gs.tsv")
    system = np.sqrt(gold)
    window.set_task("clss")
    window.add_pair(sample_data / "paragraph2sentence.sample.gs.tsv",
                    write_scores(tmp_path / "p2s.txt", system))
    run(qtbot, window)
    model = window.table_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[-1] == "Sum of Pearson"
    expected = np.corrcoef(gold, system)[0, 1]
    assert model.index(1, len(headers) - 1).data() == f"{expected:.4f}"


def test_models(qtmodeltester, qtbot, window, sample_data, tmp_path):
    pairs = FilePairsModel()
    pairs.add("a.txt", "b.txt")
    qtmodeltester.check(pairs)
    gold = gold_scores(sample_data)
    window.set_task("sts")
    window.add_pair(sample_data / "STS.gs.demo.txt", write_scores(tmp_path / "r.txt", gold))
    run(qtbot, window)
    table = EvaluationTableModel()
    table.set_report(window.report)
    qtmodeltester.check(table)
