"""The window sees what another process writes to the open project file."""

from __future__ import annotations

from simrate.core.project import Project


def test_rating_written_elsewhere_appears_without_user_action(qtbot, window, project_path):
    session = window.context.session
    row = session.ids.index("d:7")
    assert session.score(row) is None
    with Project.open(project_path) as other:  # e.g. a merged package or a CLI import
        other.rate("d:7", "alice", 2.5)
    qtbot.waitUntil(lambda: window.context.session.score(row) == 2.5, timeout=5000)
