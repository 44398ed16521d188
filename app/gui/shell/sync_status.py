"""The hub's status item in the status bar, and the hook that syncs a linked project.

SyncStatus shows connected or offline, the pending count and the last sync time, with the
one-line reason in its tooltip while offline. When a round finds edits made here that lost
to later edits of the same ratings made on another machine, the status bar says so and
shows a button that lists them (sync_conflicts.py, also View > Sync conflicts while the
project is a replica). HubLink (made once by the main window) starts
a HubSync when a project linked to a hub opens, stops it when the project closes, and asks
for a password when libpq has none; a password typed there lives in memory for this
window's session only.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QLabel, QLineEdit, QPushButton, QWidget

from simrate.gui.shell.hub_sync import HubSync
from simrate.hub.team.sync import clock_line, conflict_line

#: Milliseconds the status bar shows that edits lost to later ones.
CONFLICT_MESSAGE_MS = 20000


def describe(sync: HubSync, now: float | None = None) -> tuple[str, str]:
    """(status text, tooltip) for a HubSync's state."""
    when = "never" if sync.last_sync is None else time.strftime(
        "%H:%M:%S", time.localtime(sync.last_sync))
    pending = f"{sync.pending} pending"
    if sync.online is None:
        return f"Hub: connecting\u2026 \u00b7 {pending}", sync.link.url
    if sync.online:
        clock = clock_line(sync.clock_offset)
        warning = f"\nWarning: {clock}." if clock else ""
        return (f"\u25cf Hub: connected \u00b7 {pending} \u00b7 synced {when}",
                f"{sync.link.url}\nEvery rating is saved here first, then sent to the hub."
                + warning)
    reason = OFFLINE_REASONS.get(sync.error_kind, "")
    return (f"\u25cb Hub: offline{reason} \u00b7 {pending} \u00b7 last sync {when}",
            f"{sync.error}\nRating goes on; pending changes are sent when the hub is back.")


#: HubError kinds named in the status text (unreachable is what "offline" says already).
OFFLINE_REASONS = {
    "full": " (hub full)", "password": " (wrong password)", "database": " (no such database)",
    "removed": " (removed from the hub)", "refused": " (not allowed)",
    "newer": " (newer hub: upgrade simrate)", "project": " (another project)",
}


class SyncStatus(QLabel):
    """The status bar item of one HubSync."""

    def __init__(self, sync: HubSync, parent: QWidget | None = None):
        super().__init__(parent)
        self.sync = sync
        self.setObjectName("hubStatus")
        sync.status_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Show the current state."""
        text, tip = describe(self.sync)
        self.setText(text)
        self.setToolTip(tip)


class HubLink(QObject):
    """Starts and stops the window's HubSync with the project; owns the status item."""

    #: A HubSync started (the organizer's team panel follows it).
    started = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.context = window.context
        self.sync: HubSync | None = None
        self.status: SyncStatus | None = None
        #: Passwords typed in this window, by hub URL; never written anywhere.
        self.passwords: dict[str, str] = {}
        self.conflicts_action = QAction("Sync &conflicts\u2026", window)
        self.conflicts_action.triggered.connect(self.show_conflicts)
        self.conflicts_action.setVisible(False)
        window.menus["view"].addAction(self.conflicts_action)
        self.conflicts_button: QPushButton | None = None
        self.context.project_opened.connect(self.attach)
        self.context.project_closing.connect(self.detach)

    def attach(self) -> None:
        """Start syncing if the open project is linked to a hub (and not already)."""
        project = self.context.project
        if self.sync is not None or project is None or project.mode.plain:
            return
        url = project.mode.url
        self.sync = HubSync(project, self.passwords.get(url), parent=self)
        self.sync.password_needed.connect(self._ask_password)
        self.sync.conflicts_found.connect(self._tell_conflicts)
        self.status = SyncStatus(self.sync)
        self.window.statusBar().addPermanentWidget(self.status)
        self.conflicts_action.setVisible(True)
        self.started.emit()

    def detach(self) -> None:
        """Stop syncing (the project is closing)."""
        if self.sync is None:
            return
        self.sync.stop()
        if self.status is not None:
            self.window.statusBar().removeWidget(self.status)
            self.status.deleteLater()
        if self.conflicts_button is not None:
            self.window.statusBar().removeWidget(self.conflicts_button)
            self.conflicts_button.deleteLater()
            self.conflicts_button = None
        self.conflicts_action.setVisible(False)
        self.sync.deleteLater()
        self.sync = self.status = None

    def _tell_conflicts(self, count: int, found: list) -> None:
        """Say in the status bar that edits made here met other ones (the later won)."""
        self.window.statusBar().showMessage(conflict_line(count, found) + ".",
                                            CONFLICT_MESSAGE_MS)
        if self.conflicts_button is None:
            self.conflicts_button = QPushButton()
            self.conflicts_button.setFlat(True)
            self.conflicts_button.setToolTip("List the edits that met another value on the hub")
            self.conflicts_button.clicked.connect(self.show_conflicts)
            self.window.statusBar().addPermanentWidget(self.conflicts_button)
        total = self.sync.conflicts if self.sync is not None else count
        self.conflicts_button.setText(f"\u26a0 {total} sync conflict{'s' * (total != 1)}")
        self.conflicts_button.show()

    def show_conflicts(self):
        """Open the list of this project's sync conflicts (sync_conflicts.py)."""
        from simrate.gui.shell.sync_conflicts import open_conflicts_window

        if self.context.project is None:
            return None
        return open_conflicts_window(self.window)

    def _ask_password(self) -> None:
        sync = self.sync
        if sync is None:
            return
        text, ok = QInputDialog.getText(
            self.window, "Hub password",
            f"{sync.error}\n\nPassword for {sync.link.url} (kept for this session only):",
            QLineEdit.EchoMode.Password)
        if ok and text and self.sync is sync:
            self.passwords[sync.link.url] = text
            sync.set_password(text)
