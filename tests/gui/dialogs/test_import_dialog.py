"""The window's import: the bar is busy while the file is read, then counts the items
written (a real 50,000-pair TSV on disk, imported by the controller the window uses)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from simrate.core.project import Project
from simrate.gui.dialogs.import_dialog import ImportController
from simrate.services.imports.file_import import ImportRequest


def test_a_long_import_counts_its_items_on_the_bar(qtbot, tmp_path):
    source = tmp_path / "pairs.tsv"
    with open(source, "w", encoding="utf-8") as out:
        out.write("id\tleft\tright\n")
        for n in range(1, 50_001):
            out.write(f"p{n}\tleft text {n}\tright text {n}\n")
    path = tmp_path / "big.simrate"
    Project.create(path, scale="clss").close()
    parent = QWidget()
    qtbot.addWidget(parent)
    controller = ImportController(parent)
    seen: list[str] = []
    controller.start(ImportRequest(source=source, project_path=path))
    bar = controller.progress.bar
    bar.valueChanged.connect(lambda _v: seen.append(bar.text()))
    with qtbot.waitSignal(controller.finished, timeout=60000) as done:
        pass
    assert done.args[0].added == 50_000
    counts = [text.split(" \u00b7 ")[0] for text in seen]
    assert "20,000 of 50,000 items (40%)" in counts
    assert counts[-1] == "50,000 of 50,000 items (100%)"
    with Project.open(path) as project:
        assert project.n_items == 50_000
