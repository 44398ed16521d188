"""The organizer's web studies window on a hub replica: the hub's progress, and Close
going to the hub."""

from __future__ import annotations

import httpx

from simrate.core.project import Project
from simrate.gui.organizer.web_studies import WebStudiesPanel
from tests.hub.webhub import published_study
from tests.web.client import whole_task
from tests.web.servers import Server


def test_the_window_shows_the_hubs_progress_and_closes_the_study_on_the_hub(
        qtbot, hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=12, checks=2, per_task=3, per_item=1,
                              annotator=None)
    with Server(path) as server:
        whole_task(httpx.Client(base_url=server.url, timeout=10), "s", "W1")
        assert server.stop()[0] == 0
    with Project.open(path) as project:
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        model = panel.model
        row = [model.index(0, c).data() for c in range(model.columnCount())]
        assert row == ["s", "open", "1", "0", "3", "1", "3"]  # done, workers, ratings
        panel.table.selectRow(0)
        panel.toggle_button.click()
        assert model.index(0, 1).data() == "closed"
    with hub.admin() as conn:
        assert conn.execute("SELECT open FROM simrate.web_studies").fetchall() == [(False,)]
