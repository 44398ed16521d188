"""`team add` and `team invite` give sync links once the organizer's file names its sync
service (issue 33): `--service URL`, kept in the file; the link is one `team join` takes,
the replica syncs through `simrate serve`, and `team remove` makes the link refused with
one line. Real PostgreSQL, real `simrate serve` and command-line processes."""

from __future__ import annotations

import json
import re

from tests.hub.test_team_cli import published
from tests.web.servers import Server, free_port

LINK = re.compile(r"http://127\.0\.0\.1:\d+/team/[A-Za-z0-9_-]+")


def _one_error_line(done, *words: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simrate: error: "), done.stderr
    assert "Traceback" not in done.stderr and "Error:" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _join_rate_sync(hub, link: str, target, name: str, item: str) -> dict:
    done = hub.simrate("team", "join", link, target)
    assert done.returncode == 0, done.stderr
    assert f"joined as {name} (annotator)" in done.stdout
    _rate(target, name, item, 4.0)
    done = hub.simrate("team", "sync", target, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _rate(target, name: str, item: str, score: float) -> None:
    """A rating made in the replica (closed again before any other process syncs it)."""
    from simrate.core.project import Project

    with Project.open(target) as replica:
        replica.rate(item, name, score)


def _hub_ratings(hub) -> list[tuple]:
    with hub.admin() as conn:
        return conn.execute("SELECT annotator, item_id, login FROM simrate.ratings "
                            "ORDER BY 1, 2").fetchall()


def test_add_and_invite_give_sync_links_that_join_sync_and_are_revoked(hub, tmp_path):
    project = published(hub, tmp_path)
    cy = f"Cy{hub.name}"  # logins are the cluster's: one of this hub's own
    service = f"http://127.0.0.1:{free_port()}"
    # the first add names the service: no password asked, a sync link instead
    added = hub.simrate("team", "add", project, "Ann", "--role", "annotator", "--login",
                        f"{hub.name}_ann", "--service", service + "/", stdin="")
    assert added.returncode == 0, added.stderr
    assert f"they join with: simrate team join '{service}/team/" in added.stdout
    assert "postgresql://" not in added.stdout and ".pgpass" not in added.stdout
    ann_link = LINK.search(added.stdout).group(0)
    # the file keeps the address: an invite of a new person needs no option
    invited = hub.simrate("team", "invite", project, cy)
    assert invited.returncode == 0, invited.stderr
    cy_link = invited.stdout.strip()
    assert LINK.fullmatch(cy_link) and cy_link.startswith(service + "/team/")
    assert "/invite/" not in cy_link and "simrate team join" in invited.stderr
    token = hub.simrate("team", "token", project, "Ann")  # no --base-url: the kept one
    assert token.returncode == 0 and token.stdout.startswith(service + "/team/")
    with Server(project, port=int(service.rsplit(":", 1)[1])):
        for name, link, item in (("Ann", ann_link, "news-01"), (cy, cy_link, "news-02")):
            target = tmp_path / f"{name.lower()}.simrate"
            report = _join_rate_sync(hub, link, target, name, item)
            assert (report["pushed"], report["pending"], report["hub"]) == (1, 0, "reachable")
        logins = {name: login for name, _item, login in _hub_ratings(hub)}
        assert _hub_ratings(hub) == [("Ann", "news-01", logins["Ann"]), (cy, "news-02", logins[cy])]
        # revoked: the next sync of Cy's replica is refused with one line, nothing lost
        done = hub.simrate("team", "remove", project, cy)
        assert done.returncode == 0, done.stderr
        target = tmp_path / f"{cy.lower()}.simrate"
        _rate(target, cy, "news-03", 2.0)
        done = hub.simrate("team", "sync", target)
        _one_error_line(done, "removed from the hub", "nothing is lost")
        assert _hub_ratings(hub) == [("Ann", "news-01", logins["Ann"]), (cy, "news-02", logins[cy])]
        # invited again: a new link that works; the old one stays refused
        again = hub.simrate("team", "invite", project, cy)
        assert again.returncode == 0, again.stderr
        assert _join_rate_sync(hub, again.stdout.strip(), tmp_path / "again.simrate", cy,
                               "news-04")["pushed"] == 1
        _one_error_line(hub.simrate("team", "sync", target), "removed from the hub")


def test_service_refusals_and_going_back_to_direct(hub, tmp_path):
    project = published(hub, tmp_path)
    plain = tmp_path / "plain.simrate"
    assert hub.simrate("new", plain, "--scale", "sts").returncode == 0
    # a plain file has no sync service: refused, nothing written
    _one_error_line(hub.simrate("team", "invite", plain, "Ann", "--service",
                                "http://rate.example"), "organizer's replica of a hub")
    assert "web_invites" not in hub.simrate("info", plain).stdout
    _one_error_line(hub.simrate("team", "add", project, "Ann", "--role", "annotator",
                                "--service", "ftp://x"), "--service")
    assert hub.simrate("team", "add", project, "Olga", "--role", "organizer", "--login",
                       f"{hub.name}_olga", stdin="pw\n").returncode == 0
    _one_error_line(hub.simrate("team", "invite", project, "Olga", "--service",
                                "http://rate.example"), "Olga is an organizer")
    # refused: the address was not kept, so a later invite is a browser link as before
    browser_link = hub.simrate("team", "invite", project, "Bea").stdout.strip()
    assert "/invite/" in browser_link
    # a browser link is no sync link: `team join` says which links it takes
    _one_error_line(hub.simrate("team", "join", browser_link, tmp_path / "bea.simrate"),
                    "not a sync link", "team invite")
    assert not (tmp_path / "bea.simrate").exists()
    added = hub.simrate("team", "add", project, "Ann", "--role", "annotator", "--login",
                        f"{hub.name}_ann", "--service", "http://rate.example")
    assert "http://rate.example/team/" in added.stdout
    back = hub.simrate("team", "add", project, "Ben", "--role", "annotator", "--login",
                       f"{hub.name}_ben", "--service", "direct", stdin="pw\n")
    assert back.returncode == 0, back.stderr
    assert "postgresql://" in back.stdout and "/team/" not in back.stdout
    assert "/invite/" in hub.simrate("team", "invite", project, "Bea").stdout
