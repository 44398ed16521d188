"""The window lists the sync conflicts of its replica: a rating this machine lost, in the
scale's numbers, from the status bar's button and View > Sync conflicts. Real PostgreSQL."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog

from simrate.hub.team.sync import sync_once
from tests.hub.test_every_kind_travels import crew, later  # noqa: F401 - the fixture
from tests.hub.test_gui_hub import open_window, status_text


def test_a_rating_lost_here_is_listed_with_both_scores(qtbot, hub, crew, tmp_path):  # noqa: F811
    laptop, desktop = crew["laptop"], crew["desktop"]
    laptop.rate("d:9", "Alice", 1.25)
    later()
    desktop.rate("d:9", "Alice", 4.5)  # the later edit, on her other machine
    sync_once(desktop)
    path = laptop.path
    laptop.close()
    window = open_window(qtbot, tmp_path, path, "Alice")
    assert window.hub_link.conflicts_action.isVisible()
    qtbot.waitUntil(lambda: window.hub_link.conflicts_button is not None, timeout=15000)
    assert window.hub_link.conflicts_button.text() == "\u26a0 1 sync conflict"
    assert "connected" in status_text(window)
    window.hub_link.conflicts_button.click()
    dialog = next(d for d in window.findChildren(QDialog)
                  if d.isVisible() and d.windowTitle() == "Sync conflicts")
    model = dialog.panel.model
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=10000)
    cells = [model.index(0, c).data() for c in range(1, model.columnCount())]
    assert cells == ["rating of d:9 by Alice", "1.25", "4.5", "theirs (yours lost)"]
    assert dialog.panel.summary_label.text().startswith("1 edit made here lost")
    dialog.grab().save(str(tmp_path / "conflicts.png"))
    window.context.close_project()
    assert not window.hub_link.conflicts_action.isVisible()
    window.close()
