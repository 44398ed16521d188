"""NewProjectDialog: a project from a file of pairs, with the choice of scale."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.scale import load_scale
from app.gui.dialogs.path_field import path_row
from app.gui.shell.palette import ERROR_COLOUR, colour_style
from app.services.file_import import ImportRequest

PAIR_FILES = ("Pairs (*.tsv *.csv *.txt *.xlsx *.xml *.pyr);;All files (*)")
OTHER_SCALE = "file"


def guess_scale(source: Path) -> str:
    """`clss` for CLSS-named files, `sts` for STS and PIT files, else `clss`."""
    name = source.name.lower()
    if name.startswith("sts.") or name.endswith((".pit.tsv", ".data")) or "pit" in name:
        return "sts"
    return "clss"


class NewProjectDialog(QDialog):
    """Choose the file of pairs, the scale, a title and where to save the project."""

    def __init__(self, start_folder: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New project from a file")
        self.start_folder = start_folder
        self.source_edit = QLineEdit()
        self.source_edit.setPlaceholderText("A file of pairs: TSV, CSV, XLSX, STS, CLSS, PIT\u2026")
        self.source_edit.textChanged.connect(self._on_source_changed)
        self.scale_box = QComboBox()
        for name in ("clss", "sts"):
            scale = load_scale(name)
            self.scale_box.addItem(f"{scale.title}", name)
        self.scale_box.addItem("A scale of my own (JSON file)\u2026", OTHER_SCALE)
        self.scale_file = ""
        self.scale_box.activated.connect(self._on_scale_chosen)
        self.title_edit = QLineEdit()
        self.project_edit = QLineEdit()
        self.project_edit.setPlaceholderText("Where to save the .simrate project file")
        self._project_edited = False
        self.project_edit.textEdited.connect(lambda _t: setattr(self, "_project_edited", True))
        self.problem_label = QLabel()
        self.problem_label.setStyleSheet(colour_style(ERROR_COLOUR))

        form = QFormLayout()
        form.addRow("Pairs file:", path_row(self.source_edit, self._browse_source))
        form.addRow("Scale:", self.scale_box)
        form.addRow("Title:", self.title_edit)
        form.addRow("Save project as:", path_row(self.project_edit, self._browse_project))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create and import")
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(600)

    def _browse_source(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Pairs file", self.start_folder, PAIR_FILES)
        if path:
            self.source_edit.setText(path)

    def _browse_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save project as", self.project_edit.text(),
                                              "simrate projects (*.simrate)")
        if path:
            self.project_edit.setText(path if path.endswith(".simrate") else path + ".simrate")
            self._project_edited = True

    def _on_source_changed(self, text: str) -> None:
        source = Path(text.strip())
        if not text.strip():
            return
        if not self._project_edited:
            self.project_edit.setText(str(source.with_suffix(".simrate")))
        index = self.scale_box.findData(guess_scale(source))
        if index >= 0 and self.scale_box.currentData() != OTHER_SCALE:
            self.scale_box.setCurrentIndex(index)
        if not self.title_edit.text():
            self.title_edit.setText(source.stem)

    def _on_scale_chosen(self, index: int) -> None:
        if self.scale_box.itemData(index) != OTHER_SCALE:
            return
        path, _ = QFileDialog.getOpenFileName(self, "Scale definition", self.start_folder,
                                              "Scale (*.json)")
        if path:
            self.scale_file = path
            self.scale_box.setItemText(index, f"Scale file: {Path(path).name}")
        else:
            self.scale_box.setCurrentIndex(0)

    def problem(self) -> str:
        """What stops the dialog from being accepted, or ''."""
        source = self.source_edit.text().strip()
        target = self.project_edit.text().strip()
        if not source:
            return "Choose a file of pairs."
        if not Path(source).is_file():
            return f"There is no file {source}."
        if not target:
            return "Choose where to save the project."
        if Path(target).exists():
            return f"{target} already exists: choose another name, or open it instead."
        if self.scale_box.currentData() == OTHER_SCALE and not self.scale_file:
            return "Choose the scale file."
        return ""

    def _accept_if_valid(self) -> None:
        problem = self.problem()
        self.problem_label.setText(problem)
        if not problem:
            self.accept()

    def request(self) -> ImportRequest:
        """The import that creates the project, from the dialog's fields."""
        scale = self.scale_box.currentData()
        target = self.project_edit.text().strip()
        if not target.endswith(".simrate"):
            target += ".simrate"
        return ImportRequest(
            source=Path(self.source_edit.text().strip()),
            project_path=Path(target),
            new_scale=self.scale_file if scale == OTHER_SCALE else scale,
            title=self.title_edit.text().strip(),
        )
