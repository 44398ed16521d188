"""Counts in words: one of a thing is singular, any other number plural."""

from __future__ import annotations

from simrate.core.base.wording import counted, plural


def test_one_is_singular_and_every_other_count_plural():
    assert [counted(n, "task") for n in (0, 1, 2)] == ["0 tasks", "1 task", "2 tasks"]
    assert counted(1, "check item") == "1 check item"
    assert counted(3, "check item") == "3 check items"
    assert counted(2, "study") == "2 studies" and plural(1, "study") == "study"
    assert counted(60.0, "minute") == "60 minutes" and counted(1.0, "minute") == "1 minute"
    assert counted(12000, "item", thousands=True) == "12,000 items"
