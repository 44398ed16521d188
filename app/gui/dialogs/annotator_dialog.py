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

#: What the dialog says about blindness, in a blind window and in organizer mode.
BLIND_TEXT = ("Your ratings are saved under this name. You see only your own ratings, never "
              "anyone else's.")
ORGANIZER_TEXT = ("Your ratings are saved under this name. Organizer mode is on: you see "
                  "every annotator's ratings and the agreement between them, so your own "
                  "ratings are not blind, and the project's change log records under this "
                  "name that you opened it in organizer mode.")


class AnnotatorDialog(QDialog):
    """Ask for the annotator's name; the combo box is editable for a new name."""

    def __init__(self, names: list[str], last: str = "", parent: QWidget | None = None,
                 organizer: bool = False):
        super().__init__(parent)
        self.setWindowTitle("Who is rating?")
        self.name_box = QComboBox()
        self.name_box.setEditable(True)
        self.name_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        offered = list(dict.fromkeys([n for n in [last, *names] if n]))
        self.name_box.addItems(offered)
        self.name_box.setCurrentText(last)
        self.name_box.lineEdit().setPlaceholderText("Your name")
        explain = QLabel(ORGANIZER_TEXT if organizer else BLIND_TEXT)
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

    def name(self) -> str:
        """The name typed or chosen, trimmed."""
        return self.name_box.currentText().strip()

    def _accept_if_named(self) -> None:
        if self.name():
            self.accept()


def ask_annotator(names: list[str], last: str = "", parent: QWidget | None = None,
                  organizer: bool = False) -> str | None:
    """Ask who is rating (in organizer mode: saying it is not blind); None when the user
    cancels."""
    dialog = AnnotatorDialog(names, last, parent, organizer=organizer)
    return dialog.name() if dialog.exec() == QDialog.DialogCode.Accepted else None
