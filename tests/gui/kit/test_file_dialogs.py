"""The window's file dialogs never open a file to learn its type (issue 22, part 1).

A dialog listing the folder of the open project must leave this process's POSIX locks on
the project file and its `-shm` index as they were: Qt's stock icon provider opens files
of unknown type (`.simrate`, `-wal`, `-shm`) to sniff their content, and closing that
descriptor drops the locks SQLite holds, which lets another process delete the WAL.
"""

from __future__ import annotations

import os
import time

from PySide6.QtWidgets import QApplication, QFileDialog

from simrate.core.project import Project
from simrate.gui.kit.file_dialogs import NameOnlyIconProvider, _dialog


def held_locks(path) -> int:
    """POSIX locks this process holds on `path` (from /proc/locks)."""
    inode = os.stat(path).st_ino
    me = str(os.getpid())
    count = 0
    with open("/proc/locks") as table:
        for line in table:
            fields = line.split()
            if len(fields) > 5 and fields[4] == me and fields[5].endswith(f":{inode}"):
                count += 1
    return count


def list_folder(qtbot, dialog: QFileDialog, path) -> None:
    dialog.show()
    dialog.selectFile(str(path))
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        QApplication.processEvents()
        qtbot.wait(20)
    dialog.close()


def test_our_dialog_keeps_the_projects_locks(qtbot, project_path):
    with Project.open(project_path) as project:
        project.rate("d:5", "ana", 2.0)  # a WAL with content beside the file
        before = (held_locks(project_path), held_locks(f"{project_path}-shm"))
        assert before[0] >= 1 and before[1] >= 1
        dialog = _dialog(None, "Import", str(project_path.parent), "",
                         QFileDialog.FileMode.ExistingFile, QFileDialog.AcceptMode.AcceptOpen)
        qtbot.addWidget(dialog)
        list_folder(qtbot, dialog, project_path)
        assert isinstance(dialog.iconProvider(), NameOnlyIconProvider)
        assert (held_locks(project_path), held_locks(f"{project_path}-shm")) == before


def test_qts_stock_dialog_would_drop_them(qtbot, project_path):
    """The reason for ours: the stock widget dialog sniffs the files and drops the locks."""
    with Project.open(project_path) as project:
        project.rate("d:5", "ana", 2.0)
        assert held_locks(project_path) >= 1
        dialog = QFileDialog(None, "Import", str(project_path.parent))
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        qtbot.addWidget(dialog)
        list_folder(qtbot, dialog, project_path)
        assert held_locks(project_path) == 0


def test_no_window_code_uses_the_stock_dialogs():
    from pathlib import Path

    gui = Path(__file__).resolve().parents[3] / "app" / "gui"
    offenders = [str(path.relative_to(gui)) for path in gui.rglob("*.py")
                 if "QFileDialog.get" in path.read_text(encoding="utf-8")]
    assert offenders == []
