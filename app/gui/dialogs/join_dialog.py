"""JoinDialog: join a team hub from the start page (hub URL, where to keep the replica,
and optionally a password, used for this window's session only and never stored)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.gui.base.jobs import JobRunner
from simrate.gui.dialogs.path_field import path_row
from simrate.gui.kit.accessible import name_form_fields
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.file_dialogs import get_save_file_name

INTRO = ("Your organizer gave you the hub's URL and a password. The replica is a project "
         "file on this computer: you rate in it even when the hub is away, and it syncs by "
         "itself. Leave the password empty if it is in your password file (~/.pgpass).")


class JoinDialog(QDialog):
    """Asks for the URL, the replica's file and a password; joins in the background."""

    #: Joined: the replica's path, the person's annotator name ('' if none) and the password.
    joined = Signal(str, str, str)

    def __init__(self, folder: str, parent: QWidget | None = None):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Join a team hub")
        self.folder = folder
        self.runner = JobRunner(parent=self)
        self.url_edit = QLineEdit(placeholderText="postgresql://you@server:5432/database")
        self.path_edit = QLineEdit()
        self.password_edit = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.error_label = QLabel()
        self.error_label.setObjectName("joinError")
        self.error_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Join")
        self.buttons.accepted.connect(self.join)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(intro)
        form.addRow("Hub URL", self.url_edit)
        form.addRow("Save as", path_row(self.path_edit, self._browse))
        form.addRow("Password", self.password_edit)
        name_form_fields(form)
        form.addRow(self.error_label)
        form.addRow(self.buttons)
        self.resize(620, 260)

    def _browse(self) -> None:
        path, _ = get_save_file_name(self, "Save the replica as", self.folder,
                                              "simrate projects (*.simrate)")
        if path:
            self.path_edit.setText(path if path.endswith(".simrate") else path + ".simrate")

    def join(self) -> None:
        """Make the replica in the background; `joined` when done, one line if not."""
        url = self.url_edit.text().strip()
        path = self.path_edit.text().strip()
        if not url or not path:
            self.error_label.setText("Give the hub's URL and where to save the replica.")
            return
        password = self.password_edit.text() or None

        def work(_job):
            from simrate.hub.link.backoff import total_wait
            from simrate.hub.team.join import join

            project, _report = join(url, Path(path), password, wait=total_wait())
            with project:
                return project.mode.name or ""

        self.error_label.setText("Joining\u2026")
        self.buttons.setEnabled(False)
        self.runner.start(work, finished=lambda name: self._done(path, name, password or ""),
                          failed=self._failed)

    def _done(self, path: str, name: str, password: str) -> None:
        self.buttons.setEnabled(True)
        self.joined.emit(path, name, password)
        self.accept()

    def _failed(self, exc: SimrateError) -> None:
        self.buttons.setEnabled(True)
        self.error_label.setText(exc.message)
