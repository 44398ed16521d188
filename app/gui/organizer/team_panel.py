"""TeamPanel: the organizer's view of the hub: publish, add or remove people, who is
connected and how far each person is. All hub work runs off the GUI thread."""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import check_rater_name, rater_key
from simrate.gui.base.host import PanelHost
from simrate.gui.base.jobs import JobRunner
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.kit.accessible import named
from simrate.gui.kit.closing import PanelDialog, close_keys
from simrate.gui.kit.fitting import WrappedLabel
from simrate.hub.team.people import Person

_Index = QModelIndex | QPersistentModelIndex
#: Seconds between reads of who is connected.
REFRESH_MS = 3000


class PeopleModel(RowTableModel):
    """The hub's people: name, login, role, connected, rated, progress, last seen."""

    HEADERS = ("Name", "Login", "Role", "Connected", "Rated", "Progress", "Last sync")

    def __init__(self, n_items: int, parent=None):
        super().__init__(parent)
        self.n_items = n_items

    @property
    def people(self) -> list[Person]:
        """The people shown, in order."""
        return self.rows

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Text of one cell."""
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        person = self.rows[index.row()]
        progress = f"{100 * person.rated / self.n_items:.0f}%" if self.n_items else ""
        seen = "" if person.last_seen is None else time.strftime(
            "%H:%M:%S", time.localtime(person.last_seen))
        values = (person.name, person.login, person.kind if person.active else "removed",
                  "yes" if person.connected else "no", str(person.rated), progress, seen)
        return values[index.column()]


class AddPersonDialog(QDialog):
    """Name, role and first password of a new person (the password is typed twice).

    A name that is already a person of the hub, in any spelling (`ＡＮＮ`, `Ann` and a
    lookalike in another script are `ann`: core/base/lookalike.py), is said at once, and
    her password is changed only when "Reset her password" is ticked, the window's
    `team add --reset-password`; unticked, the password fields are off."""

    def __init__(self, parent: QWidget | None = None, people: list[Person] | None = None):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("Add a person")
        self.people = list(people or [])
        self.existing: Person | None = None
        self.name_edit = QLineEdit()
        self.name_edit.textChanged.connect(self._name_changed)
        self.role_combo = QComboBox()
        self.role_combo.addItems(["annotator", "organizer"])
        self.exists_label = WrappedLabel()
        self.reset_box = QCheckBox("Reset her password to the one typed below")
        self.reset_box.setToolTip("team add --reset-password: her replicas then need the new "
                                  "password")
        self.reset_box.toggled.connect(self._update_fields)
        self.password_edit = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.again_edit = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.error_label = WrappedLabel()
        self._lay_out()
        self._name_changed("")

    def _lay_out(self) -> None:
        form = QFormLayout(self)
        form.addRow("Name", self.name_edit)
        form.addRow("Role", self.role_combo)
        form.addRow(self.exists_label)
        form.addRow(self.reset_box)
        form.addRow("Password", self.password_edit)
        form.addRow("Again", self.again_edit)
        form.addRow(QLabel("Tell them the password in person; it is not stored here."))
        form.addRow(self.error_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.setMinimumWidth(460)

    def _name_changed(self, text: str) -> None:
        """Say whether the typed name is a person of the hub already (any spelling)."""
        self.existing = same_person(text, self.people)
        person = self.existing
        if person is not None:
            typed = text.strip()
            who = person.name if person.name == typed else \
                f"{typed} is the same name as {person.name}, and she"
            self.exists_label.setText(
                f"{who} is already a person of this hub (login {person.login}, "
                f"{person.kind}). Adding her again keeps her password unless you tick the "
                "reset below.")
        else:
            self.reset_box.setChecked(False)
        self.exists_label.setVisible(person is not None)
        self.reset_box.setVisible(person is not None)
        self._update_fields()

    def _update_fields(self) -> None:
        typing = self.existing is None or self.reset_box.isChecked()
        for edit in (self.password_edit, self.again_edit):
            edit.setEnabled(typing)
            if not typing:
                edit.clear()

    @property
    def reset(self) -> bool:
        """Whether an existing person's password is to be replaced (the box ticked)."""
        return self.existing is not None and self.reset_box.isChecked()

    def _check(self) -> None:
        if not self.name_edit.text().strip():
            self.error_label.setText("A person needs a name.")
        elif self.password_edit.text() != self.again_edit.text():
            self.error_label.setText("The two passwords differ.")
        elif self.reset and not self.password_edit.text():
            self.error_label.setText("Type her new password twice, or untick the reset.")
        else:
            self.accept()


def same_person(text: str, people: list[Person]) -> Person | None:
    """The active person of the hub whose name is `text` in any spelling (its identity key,
    lookalikes across scripts folded), else None."""
    try:
        key = rater_key(check_rater_name(text, "person's name"))
    except SimrateError:
        return None
    return next((p for p in people if p.active and rater_key(p.name) == key), None)


class TeamPanel(QWidget):
    """Publish the open project, manage people, watch who is connected."""

    def __init__(self, window: PanelHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.main_window = window  # not `window`: QWidget.window() is a method
        self.context = window.context
        self.runner = JobRunner(self.context.thread_pool, self)
        project = self.context.project
        self.hub_label = QLabel()
        self.hub_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.url_edit = QLineEdit(placeholderText="postgresql://you@server:5432/database")
        self.url_edit.setAccessibleName("Hub URL")
        self.publish_button = QPushButton("Publish")
        self.publish_button.clicked.connect(self.publish)
        self.model = PeopleModel(project.n_items if project else 0, self)
        self.table = named(QTableView(), "People on the hub")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.add_button = QPushButton("Add a person\u2026")
        self.add_button.clicked.connect(self.add_person)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.message = named(QLabel(), "Message of the team window")  # a link to copy
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._lay_out()
        # runs only while the panel is shown (as the web studies panel's): a hidden or
        # left-over panel asks the hub nothing
        self._timer = QTimer(self, interval=REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self._reading = False
        self._update()
        self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._timer.start()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._timer.stop()
        super().hideEvent(event)

    def _lay_out(self) -> None:
        """The hub line, the URL with Publish, the people, their buttons, the message."""
        publish_row = QHBoxLayout()
        publish_row.addWidget(self.url_edit, 1)
        publish_row.addWidget(self.publish_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hub_label)
        layout.addLayout(publish_row)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)

    # ------------------------------------------------------------------ state
    def _hub(self) -> tuple[str, str] | None:
        project = self.context.project
        if project is None or project.mode.plain:
            return None
        return project.mode.url, project.meta("project_uuid") or ""

    def _password(self) -> str | None:
        hub = self._hub()
        return None if hub is None else self.main_window.hub_link.passwords.get(hub[0])

    def _update(self) -> None:
        hub = self._hub()
        self.hub_label.setText(f"Hub: <b>{hub[0]}</b>" if hub else
                               "Not published yet: give the URL of a PostgreSQL database "
                               "(no password in it) and press Publish.")
        self.publish_button.setText("Publish again" if hub else "Publish")
        if hub and not self.url_edit.text():
            self.url_edit.setText(hub[0])
        for button in (self.add_button, self.remove_button):
            button.setEnabled(hub is not None)

    def _say(self, text: str) -> None:
        self.message.setText(text)

    # ------------------------------------------------------------------ actions
    def publish(self) -> None:
        """Publish the project to the URL in the field (in the background)."""
        url, path = self.url_edit.text().strip(), self.context.opened()[0].path
        password = self.main_window.hub_link.passwords.get(url)

        def work(_job):
            from simrate.core.project import Project
            from simrate.hub.link.backoff import total_wait
            from simrate.hub.team.publish import publish

            with Project.open(path) as project:
                return publish(project, url, password, wait=total_wait())

        self._say("Publishing\u2026")
        self.publish_button.setEnabled(False)
        self.runner.start(work, finished=self._published, failed=self._failed)

    def _published(self, report) -> None:
        self.publish_button.setEnabled(True)
        self.context.refresh()
        self.main_window.hub_link.attach()
        text = (f"Published: {report.items} items, {report.ratings} ratings, "
                f"{report.adjudications} adjudications.")
        if not report.hardened:
            text += (" Every login of this database can still read PostgreSQL's statistics "
                     "(who writes how much, who is connected) and its list of logins; a "
                     "superuser closes them with: simrate team harden URL")
        self._say(text)
        self._update()
        self.refresh()

    def _failed(self, exc: SimrateError) -> None:
        self.publish_button.setEnabled(True)
        self._reading = False
        self._say(exc.message)

    def add_person(self) -> None:
        """Ask for a name, role and password; create the login in the background. When the
        file names a sync service (`team add --service`), an annotator gets a sync link."""
        hub = self._hub()
        dialog = AddPersonDialog(self, self.model.people)
        if hub is None or dialog.exec() != QDialog.DialogCode.Accepted:
            return
        name, role = dialog.name_edit.text().strip(), dialog.role_combo.currentText()
        secret, password = dialog.password_edit.text() or None, self._password()
        service = self._service() if role == "annotator" else ""
        reset, existing = dialog.reset, dialog.existing

        def work(_job):
            from simrate.hub.team.people import add_person
            from simrate.hub.team.tokens import issue_token_at

            login, url = add_person(hub, name, role, secret, password, reset=reset)
            return login, url, issue_token_at(hub, name, password)[0] if service else ""

        def added(result: tuple[str, str, str]) -> None:  # login, URL, sync token
            self._added(name, service, *result, existing=existing, reset=reset)

        self.runner.start(work, finished=added, failed=self._failed)

    def _service(self) -> str:
        """The sync service's address the file keeps, once the hub's web login exists."""
        from simrate.hub.team.tokens import service_address
        from simrate.hub.team.web_hub import WEB_LOGIN_KEY

        project = self.context.opened()[0]
        return service_address(project) if project.meta(WEB_LOGIN_KEY) else ""

    def _added(self, name: str, service: str, login: str, url: str, token: str,
               existing: Person | None = None, reset: bool = False) -> None:
        if existing is None:
            first = f"Added {name} (login {login})."
        elif reset:
            first = (f"{existing.name}'s password is now the one typed here (login {login}); "
                     "her replicas ask for it at their next sync.")
        else:
            first = f"{existing.name} was on the hub already (login {login}); her password " \
                    "is unchanged."
        if token:
            from simrate.hub.link.client import make_link

            self._say(f"{first} Their sync link, to give them as you would a password (they "
                      f"join with it: simrate team join LINK FILE): {make_link(service, token)}")
        elif existing is None or reset:
            self._say(f"{first} They join from the start page with the URL {url} and the "
                      "password you gave them.")
        else:
            self._say(first)
        self.refresh()

    def remove_selected(self) -> None:
        """Revoke the selected person's login (their ratings stay)."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        hub = self._hub()
        if not rows or hub is None:
            self._say("Select a person first.")
            return
        name, password = self.model.people[rows[0].row()].name, self._password()

        def work(_job):
            from simrate.hub.team.people import remove_person

            return remove_person(hub, name, password)

        def removed(login: str) -> None:
            self._say(f"Removed {name}: login {login} can no longer connect.")
            self.refresh()

        self.runner.start(work, finished=removed, failed=self._failed)

    def refresh(self) -> None:
        """Read the people again (in the background; one read at a time)."""
        hub = self._hub()
        if hub is None or self._reading:
            return
        self._reading = True
        password = self._password()

        def work(_job):
            from simrate.hub.team.people import list_people

            return list_people(hub, password)

        self.runner.start(work, finished=self._show_people, failed=self._failed)

    def _show_people(self, people: list[Person]) -> None:
        self._reading = False
        self.model.set_rows(people)

    def shutdown(self) -> None:
        """Stop refreshing (the panel is going away)."""
        self._timer.stop()
        self.runner.cancel_all()


def open_team_window(window) -> PanelDialog:
    """The team panel in a window of its own (not modal; closed with the project)."""
    dialog = PanelDialog(window, "Team hub")
    panel = TeamPanel(window, dialog)
    dialog.hold(panel)
    dialog.finished.connect(lambda _code: panel.shutdown())
    window.context.project_closing.connect(dialog.close)
    dialog.resize(760, 420)
    dialog.show()
    return dialog
