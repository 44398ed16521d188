"""team remove on an organizer's hub project revokes the person's browser links as well as
their hub login."""

from __future__ import annotations

from tests.hub.test_team_cli import add, published


def test_team_remove_revokes_links_and_the_login(hub, tmp_path):
    project = published(hub, tmp_path)
    login, _ = add(hub, project, "Ann")
    link = hub.simrate("team", "invite", project, "Ann")
    assert link.returncode == 0, link.stderr
    assert "/invite/" in link.stdout
    done = hub.simrate("team", "remove", project, "Ann")
    assert done.returncode == 0, done.stderr
    assert "1 browser link(s) revoked" in done.stdout
    assert f"login {login} can no longer connect" in done.stdout
