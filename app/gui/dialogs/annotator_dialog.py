"""AnnotatorDialog: who is rating? Offers the last name used and the project's annotators."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.fitting import WrappedLabel

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
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Who is rating?")
        self.name_box = QComboBox()
        self.name_box.setEditable(True)
        self.name_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        offered = list(dict.fromkeys([n for n in [last, *names] if n]))
        self.name_box.addItems(offered)
        self.name_box.setCurrentText(last)
        self._field().setPlaceholderText("Your name")
        # typing replaces the offered name, never adds to it ("lead" + "zoe" = "leadzoe")
        self._field().selectAll()
        self._known = set(names)
        self.new_note = WrappedLabel()
        self.name_box.editTextChanged.connect(self._show_if_new)
        self._show_if_new()
        explain = WrappedLabel(ORGANIZER_TEXT if organizer else BLIND_TEXT)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept_if_named)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        # The dialog is never smaller than its contents: a note shown grows it, so notes
        # never overlap or lose their last lines.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addWidget(QLabel("<b>Your name</b>"))
        layout.addWidget(self.name_box)
        layout.addWidget(self.new_note)
        layout.addWidget(explain)
        layout.addWidget(self.buttons)
        # wide enough for a long offered name; a longer typed one scrolls, as in any field
        self.name_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.name_box.setMinimumWidth(360)
        for control in (self.name_box, self._field()):
            control.setAccessibleName("Your name")  # the bold label above is no buddy

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Shown: the keyboard in the name field, the offered name selected."""
        super().showEvent(event)
        self.name_box.setFocus()
        self._field().selectAll()

    def _field(self) -> QLineEdit:
        """The name box's text field (the box is editable, so it has one)."""
        edit = self.name_box.lineEdit()
        if edit is None:
            raise RuntimeError("the name box is not editable")
        return edit

    def is_new(self) -> bool:
        """True when the name is not one of the project's annotators (OK adds them)."""
        return bool(self.name()) and self.name() not in self._known

    def _show_if_new(self, *_args) -> None:
        self.new_note.setText(f"New annotator: “{self.name()}” is not in this "
                              "project yet and will be added as a new annotator."
                              if self.is_new() else "")
        self.new_note.setVisible(self.is_new())
        if self.isVisible():
            self.adjustSize()  # room for the note, or back to the size without it

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
