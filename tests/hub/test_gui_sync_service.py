"""The window of a replica joined by a sync link (issue 33): it syncs through `simrate
serve`, goes offline when the server stops, and sends what waited once it is back."""

from __future__ import annotations

from simrate.hub.link.client import ServiceSession
from tests.hub.servicehub import join_through, service_team
from tests.hub.test_gui_hub import open_window, status_text
from tests.web.servers import Server, free_port


def test_the_window_syncs_through_the_service_offline_and_back(qtbot, hub, tmp_path):
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator"})
    port = free_port()
    server = Server(path, port=port)
    try:
        join_through(server, tokens["Alice"], tmp_path / "Alice.simrate").close()
        window = open_window(qtbot, tmp_path, tmp_path / "Alice.simrate", "Alice")
        assert isinstance(window.hub_link.sync.session, ServiceSession)
        qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
        project = window.context.project
        project.rate("d:1", "Alice", 2.0)
        rated = project.team_tables.read("SELECT max(id) FROM changes")[0][0]
        qtbot.waitUntil(lambda: window.hub_link.sync.acknowledged >= rated
                        and "connected \u00b7 0 pending" in status_text(window), timeout=10000)
        server.stop()
        project.rate("d:2", "Alice", 3.0)
        qtbot.waitUntil(lambda: "offline \u00b7 1 pending" in status_text(window),
                        timeout=15000)
        assert "unreachable" in window.hub_link.status.toolTip()
        server = Server(path, port=port)  # back on the same address
        qtbot.waitUntil(lambda: "connected \u00b7 0 pending" in status_text(window),
                        timeout=65000)
        with hub.admin() as admin:
            rows = admin.execute("SELECT item_id FROM simrate.ratings WHERE annotator = "
                                 "'Alice' ORDER BY item_id").fetchall()
        assert rows == [("d:1",), ("d:2",)]
        window.close()
    finally:
        server.stop()
