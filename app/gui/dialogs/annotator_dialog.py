"""AnnotatorDialog: who is rating? Offers the last name used and the project's annotators."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)


class AnnotatorDialog(QDialog):
    """Ask for the annotator's name; the combo box is editable for a new name."""

    def __init__(self, names: list[str], last: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Who is rating?")
        self.name_box = QComboBox()
        self.name_box.setEditable(True)
        self.name_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        offered = list(dict.fromkeys([n for n in [last, *names] if n]))
        self.name_box.addItems(offered)
        self.name_box.setCurrentText(last)
        self.name_box.lineEdit().setPlaceholderText("Your name")
        explain = QLabel("Your ratings are saved under this name. You see only your own "
                         "ratings, never anyone else's.")
        explain.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept_if_named)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Your name</b>"))
        layout.addWidget(self.name_box)
        layout.addWidget(explain)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(380)
        for control in (self.name_box, self.name_box.lineEdit()):
            control.setAccessibleName("Your name")  # the bold label above is no buddy

    def name(self) -> str:
        """The name typed or chosen, trimmed."""
        return self.name_box.currentText().strip()

    def _accept_if_named(self) -> None:
        if self.name():
            self.accept()


def ask_annotator(names: list[str], last: str = "", parent: QWidget | None = None) -> str | None:
    """Ask who is rating; None when the user cancels."""
    dialog = AnnotatorDialog(names, last, parent)
    return dialog.name() if dialog.exec() == QDialog.DialogCode.Accepted else None
