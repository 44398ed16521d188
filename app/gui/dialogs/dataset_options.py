"""The choices of a dataset folder in the export dialog (`--format dataset`'s options).

Shown only while the dataset format is chosen: the split name, the licence id, the card's
title, and the two ticks that give up privacy (raters' names, notes), both off by default.
The values are checked by the export itself, which explains a refusal in the dialog.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLineEdit, QWidget

from simrate.gui.kit.accessible import name_form_fields
from simrate.services.dataset.dataset_export import DatasetOptions


class DatasetOptionsBox(QWidget):
    """Split, licence, title, --keep-rater-names and --with-notes as widgets."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        defaults = DatasetOptions()
        self.split_edit = QLineEdit(defaults.split)
        self.license_edit = QLineEdit(defaults.license)
        self.license_edit.setToolTip("An SPDX licence id such as CC-BY-4.0, CC0-1.0 or MIT")
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("the project's title")
        self.names_check = QCheckBox("Keep raters' names (otherwise rater-01, crowd-0001, \u2026)")
        self.notes_check = QCheckBox("Include raters' and adjudicators' notes")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Split:", self.split_edit)
        form.addRow("Licence:", self.license_edit)
        form.addRow("Title:", self.title_edit)
        form.addRow(self.names_check)
        form.addRow(self.notes_check)
        name_form_fields(form)

    def options(self) -> DatasetOptions:
        """The options as the export takes them."""
        return DatasetOptions(split=self.split_edit.text().strip(),
                              license=self.license_edit.text().strip(),
                              title=self.title_edit.text().strip(),
                              keep_rater_names=self.names_check.isChecked(),
                              with_notes=self.notes_check.isChecked())
