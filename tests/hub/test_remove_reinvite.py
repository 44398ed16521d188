"""Remove and re-invite keeps the work (issue 42): a person removed from the hub while her
replica held pending ratings is added again (`team add`), and her existing replica takes
the new link (`team join NEW_LINK EXISTING.simrate`) and sends all it held; nothing is
stranded. Both routes: a direct login, and a sync link through `simrate serve`. Real
PostgreSQL, a real `simrate serve`, and the command line's one-line messages."""

from __future__ import annotations

import re

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.hub.link.client import make_link
from simrate.hub.link.connection import HubError
from simrate.hub.team.join import join
from simrate.hub.team.people import add_person, remove_person
from simrate.hub.team.sync import pending_count, sync_once
from simrate.hub.team.tokens import issue_token
from tests.hub.hubs import join_as, team
from tests.hub.servicehub import join_through, service_team
from tests.web.servers import Server

PENDING = 40
ITEMS = 45


def _rate_offline(replica: Project, name: str) -> None:
    """PENDING ratings made after the person was removed: they wait in the outbox."""
    for i in range(2, PENDING + 2):
        replica.rate(f"d:{i}", name, (i % 20) * 0.25)


def _hub_count(hub, name: str) -> int:
    with hub.admin() as conn:
        return conn.execute("SELECT count(code) FROM simrate.ratings WHERE annotator = %s",
                            (name,)).fetchone()[0]


def _one_line(done, *words: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simrate: error: "), done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_direct_login_removed_and_added_again_sends_what_its_replica_held(hub, tmp_path):
    org, logins = team(hub, tmp_path, {"Alice": "annotator", "Bob": "annotator"}, ITEMS)
    path = tmp_path / "alice.simrate"
    alice = join_as(hub, logins["Alice"], path)
    alice.rate("d:1", "Alice", 1.0)
    sync_once(alice)
    remove_person(org, "Alice")
    _rate_offline(alice, "Alice")
    with pytest.raises(HubError) as refused:
        sync_once(alice)
    assert refused.value.kind == "removed" and "simrate team join NEW_LINK" in \
        refused.value.message
    assert pending_count(alice) == PENDING
    alice.close()
    # the command line names the exact commands, with this file and her name
    line = _one_line(hub.simrate("team", "sync", path), "removed from the hub",
                     f"nothing is lost ({PENDING} pending here)",
                     "simrate team add THEIR.simrate Alice --role annotator",
                     f"simrate team join NEW_LINK {path}")
    assert "changes stay pending" not in line
    # a sync link for a removed person is refused, naming the command that re-invites
    with pytest.raises(SimrateError, match=r"Alice was removed from this hub: invite them "
                       r"again with `simrate team add .*organizer\.simrate Alice --role "
                       r"annotator`"):
        issue_token(org, "Alice")
    # added again: the login she had; the existing file takes the link and sends it all
    login, url = add_person(org, "Alice", "annotator", None)  # her password is kept
    assert login == logins["Alice"]
    done = hub.simrate("team", "join", url, path)
    assert done.returncode == 0, done.stderr
    assert f"joined again as Alice (annotator), the file kept: sent {PENDING}" in done.stdout
    assert "pending 0" in done.stdout
    assert _hub_count(hub, "Alice") == PENDING + 1
    with Project.open(path) as again:
        assert pending_count(again) == 0 and again.rating("d:41", "Alice") == 0.25
    org.close()


def test_an_existing_file_takes_no_other_persons_or_projects_link(hub, tmp_path):
    org, logins = team(hub, tmp_path, {"Alice": "annotator", "Bob": "annotator"})
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    alice.rate("d:1", "Alice", 2.0)
    alice.close()
    before = (tmp_path / "alice.simrate").read_bytes()
    with pytest.raises(SimrateError, match="Alice's replica, and this link is Bob's"):
        join(hub.url(logins["Bob"]), tmp_path / "alice.simrate")
    assert (tmp_path / "alice.simrate").read_bytes() == before
    plain = Project.create(tmp_path / "plain.simrate", scale="sts")
    plain.close()
    with pytest.raises(SimrateError, match="no replica of a hub"):
        join(hub.url(logins["Bob"]), tmp_path / "plain.simrate")
    org.close()


def test_a_sync_link_removed_and_invited_again_sends_what_its_replica_held(hub, tmp_path):
    org_path, _logins, tokens = service_team(hub, tmp_path, {"Cy": "annotator"}, ITEMS)
    path = tmp_path / "cy.simrate"
    with Server(org_path) as server:
        cy = join_through(server, tokens["Cy"], path)
        cy.rate("d:1", "Cy", 3.0)
        sync_once(cy)
        with Project.open(org_path) as org:
            remove_person(org, "Cy")
        _rate_offline(cy, "Cy")
        with pytest.raises(HubError) as refused:
            sync_once(cy)
        assert refused.value.kind == "removed"
        assert pending_count(cy) == PENDING
        cy.close()
        _one_line(hub.simrate("team", "sync", path), f"nothing is lost ({PENDING} pending "
                  "here)", "simrate team add THEIR.simrate Cy --role annotator",
                  f"simrate team join NEW_LINK {path}")
        _one_line(hub.simrate("team", "token", org_path, "Cy"), "Cy was removed from this "
                  "hub", f"simrate team add {org_path} Cy --role annotator")
        # `team add` with the service: her login again, and a sync link
        added = hub.simrate("team", "add", org_path, "Cy", "--role", "annotator",
                            "--service", server.url)
        assert added.returncode == 0, added.stderr
        new_link = re.search(r"http://\S+/team/[A-Za-z0-9_-]+", added.stdout).group(0)
        assert new_link != make_link(server.url, tokens["Cy"])
        cy, report = join(new_link, path)
        assert (report.pushed, report.pending) == (PENDING, 0)
        assert _hub_count(hub, "Cy") == PENDING + 1
        assert cy.mode.token and cy.mode.token != tokens["Cy"]
        cy.rate("d:44", "Cy", 5.0)  # and it goes on syncing through the new link
        assert sync_once(cy).pushed == 1
        cy.close()
        server.stop()
