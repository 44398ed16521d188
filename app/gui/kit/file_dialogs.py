"""File dialogs that never open a file to learn what it is.

Qt's own dialog asks the MIME database what each listed file is, and for a name it does not
know (`.simrate`, `-wal`, `-shm`) the database opens the file and reads its first bytes. A
project file that this process has open must never be opened and closed by another route:
closing any descriptor of it drops every POSIX lock the process holds on it, and another
process could then delete the WAL under the window. So every file dialog of the window is
Qt's widget dialog (a native dialog may sniff in-process too) with an icon provider that
judges by name alone. The functions mirror QFileDialog's static ones.
"""

from __future__ import annotations

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QAbstractFileIconProvider, QIcon
from PySide6.QtWidgets import QApplication, QFileDialog, QStyle, QWidget


class NameOnlyIconProvider(QAbstractFileIconProvider):
    """Icons and type names from the file's name and kind (folder, drive, file) only."""

    def icon(self, what) -> QIcon:  # noqa: D102 - Qt's two overloads
        style = QApplication.style()
        if isinstance(what, QFileInfo):
            if what.isRoot():
                return style.standardIcon(QStyle.StandardPixmap.SP_DriveHDIcon)
            if what.isDir():
                return style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
            return style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        if what == QAbstractFileIconProvider.IconType.Folder:
            return style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        if what == QAbstractFileIconProvider.IconType.Drive:
            return style.standardIcon(QStyle.StandardPixmap.SP_DriveHDIcon)
        if what == QAbstractFileIconProvider.IconType.Computer:
            return style.standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)
        return style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)

    def type(self, info: QFileInfo) -> str:  # noqa: A003 - Qt's name
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


_PROVIDER: NameOnlyIconProvider | None = None


def _dialog(parent: QWidget | None, caption: str, folder: str, filters: str,
            mode: QFileDialog.FileMode, accept: QFileDialog.AcceptMode) -> QFileDialog:
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = NameOnlyIconProvider()
    dialog = QFileDialog(parent, caption, folder, filters)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setIconProvider(_PROVIDER)
    dialog.setFileMode(mode)
    dialog.setAcceptMode(accept)
    return dialog


def _run(dialog: QFileDialog) -> tuple[list[str], str]:
    if dialog.exec() != QFileDialog.DialogCode.Accepted:
        return [], ""
    return dialog.selectedFiles(), dialog.selectedNameFilter()


def get_open_file_name(parent: QWidget | None = None, caption: str = "", folder: str = "",
                       filters: str = "") -> tuple[str, str]:
    """(path or "", chosen filter) of one existing file."""
    files, chosen = _run(_dialog(parent, caption, folder, filters,
                                 QFileDialog.FileMode.ExistingFile,
                                 QFileDialog.AcceptMode.AcceptOpen))
    return (files[0] if files else ""), chosen


def get_open_file_names(parent: QWidget | None = None, caption: str = "", folder: str = "",
                        filters: str = "") -> tuple[list[str], str]:
    """(paths, chosen filter) of one or more existing files."""
    return _run(_dialog(parent, caption, folder, filters,
                        QFileDialog.FileMode.ExistingFiles,
                        QFileDialog.AcceptMode.AcceptOpen))


def get_save_file_name(parent: QWidget | None = None, caption: str = "", folder: str = "",
                       filters: str = "") -> tuple[str, str]:
    """(path or "", chosen filter) to write to; Qt asks before replacing a file."""
    files, chosen = _run(_dialog(parent, caption, folder, filters,
                                 QFileDialog.FileMode.AnyFile,
                                 QFileDialog.AcceptMode.AcceptSave))
    return (files[0] if files else ""), chosen


def get_existing_directory(parent: QWidget | None = None, caption: str = "",
                           folder: str = "") -> str:
    """An existing folder (the dialog can make a new one), or "" when cancelled."""
    dialog = _dialog(parent, caption, folder, "", QFileDialog.FileMode.Directory,
                     QFileDialog.AcceptMode.AcceptOpen)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    files, _ = _run(dialog)
    return files[0] if files else ""
