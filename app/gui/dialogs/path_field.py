"""A path typed in a line edit, with a button beside it that picks the file in a dialog:
the row every file-choosing dialog here has (new project, export, ratings import)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget


def path_row(edit: QLineEdit, browse: Callable[[], None],
             button_text: str = "Browse\u2026") -> QWidget:
    """`edit` stretched, with a button that calls `browse` (which asks and fills `edit`)."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    button = QPushButton(button_text)
    button.clicked.connect(browse)
    layout.addWidget(button)
    return row
