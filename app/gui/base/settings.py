"""Settings declared once, with their types and defaults, stored through QSettings.

User preferences (`preferences/...`) are kept apart from remembered window and session
state (`state/...`), so resetting one never loses the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

#: How many recent projects the start page remembers.
MAX_RECENT = 10


@dataclass(frozen=True)
class Option:
    """One setting: where it lives, its Python type and its default."""

    key: str
    kind: type
    default: Any
    description: str = ""

    def convert(self, raw: Any) -> Any:
        """Turn what QSettings returns (often a string in INI files) into `kind`."""
        if raw is None:
            return self.default
        try:
            if self.kind is bool:
                return raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1", "yes")
            if self.kind is list:
                # QSettings gives back a lone string for a one-element list in INI files.
                if isinstance(raw, str):
                    return [raw] if raw else []
                return [str(v) for v in raw]
            if self.kind is QByteArray:
                return raw if isinstance(raw, QByteArray) else QByteArray(raw)
            return self.kind(raw)
        except (TypeError, ValueError):
            return self.default


TEXT_SIZE = Option("preferences/text_size", int, 15, "point size of the texts being rated")
RECENT_PROJECTS = Option("state/recent_projects", list, [], "most recent first")
LAST_ANNOTATOR = Option("state/last_annotator", str, "", "offered when asking who is rating")
WINDOW_GEOMETRY = Option("state/window_geometry", QByteArray, QByteArray())
WINDOW_STATE = Option("state/window_state", QByteArray, QByteArray(), "docks and toolbars")
LAST_FOLDER = Option("state/last_folder", str, "", "where file dialogs start")
LAST_SCALE = Option("state/last_scale", str, "", "the scale last chosen for generic pairs")

ALL_OPTIONS = (TEXT_SIZE, RECENT_PROJECTS, LAST_ANNOTATOR, WINDOW_GEOMETRY, WINDOW_STATE,
               LAST_FOLDER, LAST_SCALE)
#: Text sizes the View menu steps through, in points.
TEXT_SIZE_RANGE = (9, 32)


class Settings:
    """Typed access to the declared options over one QSettings store."""

    def __init__(self, store: QSettings | None = None):
        self.store = store if store is not None else QSettings()

    def get(self, option: Option) -> Any:
        """The stored value of `option`, converted to its type, or its default."""
        return option.convert(self.store.value(option.key, None))

    def set(self, option: Option, value: Any) -> None:
        """Store `value` for `option`."""
        self.store.setValue(option.key, value)

    def recent_projects(self) -> list[str]:
        """Recent project paths, most recent first."""
        return self.get(RECENT_PROJECTS)

    def add_recent_project(self, path: str) -> None:
        """Put `path` first in the recent projects, dropping duplicates and the oldest."""
        recent = [p for p in self.recent_projects() if p != path]
        self.set(RECENT_PROJECTS, [path, *recent][:MAX_RECENT])

    def remove_recent_project(self, path: str) -> None:
        """Forget a recent project (for example one that no longer exists)."""
        self.set(RECENT_PROJECTS, [p for p in self.recent_projects() if p != path])

    def text_size(self) -> int:
        """The text point size, kept inside TEXT_SIZE_RANGE."""
        low, high = TEXT_SIZE_RANGE
        return max(low, min(high, self.get(TEXT_SIZE)))

    def sync(self) -> None:
        """Write pending changes to disk."""
        self.store.sync()


def set_application_names() -> None:
    """Names QSettings and QStandardPaths use to place our files."""
    from PySide6.QtCore import QCoreApplication

    QCoreApplication.setOrganizationName("simrate")
    QCoreApplication.setApplicationName("simrate")
