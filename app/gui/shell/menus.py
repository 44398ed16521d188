"""The main window's menus: every action, and therefore every shortcut, is listed here."""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar


def _action(window, name: str, text: str, keys: list[str], slot) -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcuts([QKeySequence(k) for k in keys])
    action.triggered.connect(slot)
    window.actions_by_name[name] = action
    return action


def build_menus(window) -> dict[str, QMenu]:
    """Create File, Edit, Rating, View and Help on `window`; returns menus by name."""
    bar = window.menuBar()
    menus = {"file": _file_menu(window, bar.addMenu("&File")),
             "edit": _edit_menu(window, bar.addMenu("&Edit"))}
    menus["rating"] = bar.addMenu("&Rating")  # filled by the RatingPanel when a project opens
    view_menu = bar.addMenu("&View")
    view_menu.addAction(_action(window, "larger", "&Larger text", ["Ctrl++", "Ctrl+="],
                                lambda: window.change_text_size(1)))
    view_menu.addAction(_action(window, "smaller", "&Smaller text", ["Ctrl+-"],
                                lambda: window.change_text_size(-1)))
    view_menu.addSeparator()
    menus["panels"] = view_menu.addMenu("&Panels")  # dock toggles, added with the docks
    menus["view"] = view_menu
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(_action(window, "guidelines", "Scale &guidelines", ["F1"],
                                window.show_guidelines))
    help_menu.addAction(_action(window, "shortcuts", "&Keyboard shortcuts", ["Ctrl+/"],
                                window.show_shortcuts))
    help_menu.addAction(_action(window, "about", "&About simrate", [], window.show_about))
    menus["help"] = help_menu
    return menus


def _file_menu(window, menu: QMenu) -> QMenu:
    menu.addAction(_action(window, "new", "&New project from a file\u2026", ["Ctrl+N"],
                           window.new_project_from_file))
    menu.addAction(_action(window, "open", "&Open project\u2026", ["Ctrl+O"],
                           window.choose_project))
    recent = menu.addMenu("Open &recent")
    recent.aboutToShow.connect(lambda: _fill_recent(window, recent))
    menu.addAction(_action(window, "sample", "Rate the &sample", [], window.open_sample))
    menu.addAction(_action(window, "sample_organizer", "Open the sample as or&ganizer", [],
                           window.open_sample_as_organizer))
    menu.addSeparator()
    menu.addAction(_action(window, "import", "&Import pairs or ratings\u2026", ["Ctrl+I"],
                           window.import_into_project))
    menu.addSeparator()
    menu.addAction(_action(window, "close", "&Close project", ["Ctrl+W"], window.close_project))
    menu.addAction(_action(window, "quit", "&Quit", ["Ctrl+Q"], window.close))
    return menu


def _edit_menu(window, menu: QMenu) -> QMenu:
    stack = window.context.undo_stack
    undo = stack.createUndoAction(window, "&Undo")
    undo.setShortcuts([QKeySequence("Ctrl+Z")])
    redo = stack.createRedoAction(window, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    window.actions_by_name["undo"], window.actions_by_name["redo"] = undo, redo
    menu.addAction(undo)
    menu.addAction(redo)
    menu.addSeparator()
    menu.addAction(_action(window, "find", "&Find item\u2026", ["Ctrl+F"], window.focus_search))
    return menu


def _fill_recent(window, menu: QMenu) -> None:
    menu.clear()
    for path in window.context.settings.recent_projects():
        action = menu.addAction(Path(path).name)
        action.setToolTip(path)
        action.setEnabled(Path(path).is_file())
        action.triggered.connect(lambda _=False, p=path: window.open_project(p))
    if not menu.actions():
        menu.addAction("(none)").setEnabled(False)


def _walk(menu: QMenu, trail: str) -> Iterator[tuple[str, QAction]]:
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu):
            yield from _walk(sub, f"{trail} \u203a {sub.title()}")
        elif sub is None and not action.isSeparator():
            yield trail, action


def shortcuts_html(bar: QMenuBar) -> str:
    """A table of every menu action that has keys: menu, action, keys."""
    rows = []
    for top in bar.actions():
        menu = top.menu()
        if not isinstance(menu, QMenu):
            continue
        for trail, action in _walk(menu, menu.title()):
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                             for k in action.shortcuts())
            if keys:
                text = action.text().replace("&", "")
                rows.append(f"<tr><td>{escape(trail.replace('&', ''))}</td>"
                            f"<td>{escape(text)}</td><td><b>{escape(keys)}</b></td></tr>")
    return "<table cellspacing='6'>" + "".join(rows) + "</table>"
