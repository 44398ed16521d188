"""Accessible names: what a screen reader says for each control.

Qt names a button by its text and a field by the label whose buddy it is; what it cannot
name (a field inside a row of its own, a table, a search box without a label, a drawing) is
named here, in words the window already shows.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QAbstractButton, QFormLayout, QLabel, QLineEdit, QWidget

from simrate.core.base.scale import Scale, fmt

W = TypeVar("W", bound=QWidget)


def named(widget: W, name: str, description: str = "") -> W:
    """Give `widget` an accessible name (and description); returns it."""
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
    return widget


def plain_label(text: str) -> str:
    """A form label as words: no mnemonic ampersand, no closing colon."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").strip().rstrip(":")


def name_form_fields(form: QFormLayout) -> None:
    """Fields in rows of their own (a path and its Browse button) get their row's label:
    Qt names only the field the label is the buddy of, here the row's container."""
    for row in range(form.rowCount()):
        label_item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        field_item = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
        container = field_item.widget() if field_item is not None else None
        if label_item is None or container is None:
            continue
        label = label_item.widget()
        if not isinstance(label, QLabel) or not label.text():
            continue
        text = plain_label(label.text())
        for edit in container.findChildren(QLineEdit):
            if not edit.accessibleName():
                edit.setAccessibleName(text)
        for button in container.findChildren(QAbstractButton):
            if not button.accessibleName():
                button.setAccessibleName(f"{plain_label(button.text())} ({text})")


def scale_value_text(scale: Scale, saved: int | None, pending: int | None) -> str:
    """The score a scale shows, in words: its value, the label of its point (or the two
    labels it lies between), and whether it is saved."""
    code = pending if pending is not None else saved
    if code is None:
        return "no score yet"
    value = scale.from_code(code)
    points = sorted(scale.points, key=lambda p: p.value)
    exact = [p for p in points if abs(p.value - value) < 1e-9]
    if exact:
        words = f"{fmt(value)}, {exact[0].label}"
    else:
        below = [p for p in points if p.value < value]
        above = [p for p in points if p.value > value]
        if below and above:
            words = (f"{fmt(value)}, between {fmt(below[-1].value)} {below[-1].label} and "
                     f"{fmt(above[0].value)} {above[0].label}")
        else:
            words = fmt(value)
    if pending is not None and pending != saved:
        return f"{words}, not saved yet"
    return f"{words}, saved"
