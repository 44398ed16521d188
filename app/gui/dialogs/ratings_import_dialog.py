"""RatingsImportDialog: bring in other annotators' ratings after seeing what would change.

The organizer picks a ratings file (CSV, TSV, XLSX) or a returned annotator package
(`.simrate`). The dialog previews, in the background, how many ratings would be added,
changed and left as they are, lists the conflicts (a rating the project already holds
with another score), and asks which side wins. Nothing is written until Import is pressed;
the import is then one transaction on a connection of its own, and the window picks it up
with `Project.refresh()`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QRadioButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.gui.base.jobs import JobRunner
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.dialogs.path_field import path_row
from simrate.gui.kit.accessible import name_form_fields, named
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.file_dialogs import get_open_file_name
from simrate.gui.kit.palette import ERROR_COLOUR, colour_style
from simrate.services.imports.ratings_preview import (
    RESOLVE_KEEP,
    RESOLVE_THEIRS,
    ImportPreview,
    commit_import,
    preview_import,
)

_Index = QModelIndex | QPersistentModelIndex
SOURCE_FILES = ("Ratings or annotator packages (*.csv *.tsv *.txt *.xlsx *.simrate);;"
                "All files (*)")


class ConflictModel(RowTableModel):
    """Conflicting ratings: item, annotator, the project's score, the incoming one."""

    HEADERS = ("Item", "Annotator", "In the project", "In the file")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """The four fields as text."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            row = self.rows[index.row()]
            return (row.item_id, row.annotator, row.project, row.incoming)[index.column()]
        return None


class RatingsImportDialog(QDialog):
    """Preview, then import, a ratings file or an annotator package."""

    #: The import was written: a one-line summary.
    imported = Signal(str)

    def __init__(self, project_path: str | Path, organizer: str = "", start_folder: str = "",
                 runner: JobRunner | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Import ratings")
        self.project_path = Path(project_path)
        self.organizer = organizer
        self.start_folder = start_folder or str(self.project_path.parent)
        self.runner = runner or JobRunner(parent=self)
        self.preview: ImportPreview | None = None
        self.summary = ""
        self._busy = False
        self._build()
        self._update_buttons()

    def _build(self) -> None:
        self.path_edit = QLineEdit()
        self.path_edit.setPlaceholderText("A ratings file (long or wide) or a returned package")
        self.path_edit.editingFinished.connect(self.start_preview)
        self.annotator_edit = QLineEdit()
        self.annotator_edit.setPlaceholderText("only for a file without an annotator column")
        self.annotator_edit.editingFinished.connect(self.start_preview)
        form = QFormLayout()
        form.addRow("File:", path_row(self.path_edit, self.choose_file, "Choose\u2026"))
        form.addRow("Annotator:", self.annotator_edit)
        name_form_fields(form)

        self.summary_label = QLabel("Choose a file to see what importing it would change.")
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.conflict_box = self._conflict_box()
        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton("Import",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.import_button.clicked.connect(self.start_import)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.conflict_box, 1)
        layout.addWidget(self.buttons)
        self.setMinimumSize(640, 300)

    def _conflict_box(self) -> QWidget:
        """The conflicts table and the choice of which side wins (hidden without conflicts)."""
        self.conflict_model = ConflictModel(self)
        self.conflict_table = named(QTableView(), "Conflicting ratings")
        self.conflict_table.setModel(self.conflict_model)
        self.conflict_table.verticalHeader().hide()
        self.conflict_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.conflict_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch)
        self.keep_radio = QRadioButton("Keep the project's scores for the conflicting ratings")
        self.theirs_radio = QRadioButton("Take the scores from the file (the old ones stay in "
                                         "the change log)")
        self.keep_radio.setChecked(True)
        widget = QWidget()
        box = QVBoxLayout(widget)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(QLabel("<b>Conflicts</b>: these ratings are already in the project with "
                             "another score."))
        box.addWidget(self.conflict_table)
        box.addWidget(self.keep_radio)
        box.addWidget(self.theirs_radio)
        widget.setVisible(False)
        return widget

    # ------------------------------------------------------------------ preview
    def choose_file(self) -> None:
        """Ask for the file, then preview it."""
        path, _ = get_open_file_name(self, "Import ratings", self.start_folder,
                                              SOURCE_FILES)
        if path:
            self.set_source(path)

    def set_source(self, path: str | Path) -> None:
        """Preview importing this file."""
        self.path_edit.setText(str(path))
        self.start_preview()

    def start_preview(self) -> None:
        """Work out, in the background, what importing the chosen file would change."""
        text = self.path_edit.text().strip()
        if not text or self._busy:
            return
        self.preview = None
        self._busy = True
        self.summary_label.setStyleSheet("")
        self.summary_label.setText(f"Reading {Path(text).name}\u2026")
        self.conflict_box.setVisible(False)
        annotator = self.annotator_edit.text().strip() or None
        self.runner.start(lambda job: preview_import(self.project_path, text, annotator),
                          finished=self._on_preview, failed=self._on_failed)
        self._update_buttons()

    def _on_preview(self, preview: ImportPreview) -> None:
        self._busy = False
        self.preview = preview
        self.summary_label.setText(describe(preview))
        self.conflict_model.set_rows(preview.conflicts)
        self.conflict_box.setVisible(bool(preview.conflicts))
        self._update_buttons()

    def _on_failed(self, exc: SimrateError) -> None:
        self._busy = False
        self.summary_label.setText(f"<b>Cannot import:</b> {exc}")
        self.summary_label.setStyleSheet(colour_style(ERROR_COLOUR))
        self._update_buttons()

    def _update_buttons(self) -> None:
        preview = None if self._busy else self.preview
        self.import_button.setEnabled(preview is not None and (preview.changes_anything
                                                               or bool(preview.conflicts)))

    # ------------------------------------------------------------------ commit
    def resolve(self) -> str:
        """How conflicts are settled: keep (the project's) or theirs (the file's)."""
        return RESOLVE_THEIRS if self.theirs_radio.isChecked() else RESOLVE_KEEP

    def start_import(self) -> None:
        """Write the ratings in the background."""
        if self.preview is None or self._busy:
            return
        self._busy = True
        preview, resolve = self.preview, self.resolve()
        annotator = self.annotator_edit.text().strip() or None
        self.summary_label.setText("Importing\u2026")
        self.runner.start(lambda job: commit_import(self.project_path, preview, resolve,
                                                    annotator, self.organizer),
                          finished=self._on_imported, failed=self._on_failed)
        self._update_buttons()

    def _on_imported(self, summary: str) -> None:
        self._busy = False
        self.summary = summary
        self.imported.emit(summary)
        self.accept()


def describe(preview: ImportPreview) -> str:
    """The preview in a few lines of rich text."""
    who = ", ".join(preview.annotators)
    what = "Package" if preview.kind == "package" else "Ratings file"
    lines = [f"<b>{what}</b> {preview.path.name}: ratings by {who}"]
    if preview.new_annotators:
        lines.append(f"New annotator{'s' * (len(preview.new_annotators) != 1)}: "
                     f"{', '.join(preview.new_annotators)}")
    changed = preview.changed
    clashes = len(preview.conflicts)
    counts = [f"<b>{preview.added:,}</b> added",
              f"<b>{clashes:,}</b> conflict{'s' * (clashes != 1)}",
              f"{preview.unchanged:,} unchanged"]
    if changed:
        counts.insert(1, f"{changed:,} with a new note")
    if preview.skips:
        counts.insert(1, f"<b>{preview.skips:,}</b> skip{'s' * (preview.skips != 1)} "
                         "(cannot judge)")
    lines.append(" \u00b7 ".join(counts))
    if preview.kind == "package" and preview.unrated:
        lines.append(f"{preview.unrated:,} items of the package were left unrated")
    if preview.excluded:
        lines.append(f"Note: {', '.join(preview.excluded)} is excluded from agreement and gold")
    if not preview.changes_anything and not preview.conflicts:
        lines.append("Nothing to import: the project already holds all of these ratings.")
    return "<br>".join(lines)
