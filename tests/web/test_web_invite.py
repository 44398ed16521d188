"""simrate team invite: a team member rates their assignment in the browser, blind, as
themselves; team remove revokes the link."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from simrate.core.project import Project
from simrate.core.team.invites import invite
from simrate.web.pages import create_app
from tests.cli.helpers import simrate
from tests.web.client import form_of
from tests.web.projects import make_project


def assign_items(path, name, ids):
    with Project.open(path) as project, project.team_tables.transaction() as conn:
        from simrate.core.team.teamdb import ensure_team_tables

        ensure_team_tables(conn)
        conn.executemany("INSERT INTO assignment VALUES (?, ?)",
                         [(project.item_ord(i), name) for i in ids])


def test_an_invited_person_rates_their_assignment_blind_as_themselves(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=6, checks=0)
    with Project.open(path) as project:
        project.rate("i002", "alice", 4.0)  # another person's rating: never shown
        project.roster.add("bob")
    assign_items(path, "bob", ["i002", "i004", "i005"])
    made = simrate(capsys, "team", "invite", path, "bob", "--base-url", "http://rate.example")
    assert made.status == 0, made.err
    link = made.out.strip()
    token = re.fullmatch(r"http://rate\.example/invite/([\w-]{40,})", link).group(1)
    with TestClient(create_app(path), raise_server_exceptions=False) as client:
        seen = []
        for score in ("1", "2.5", "3"):
            page = client.get(f"/invite/{token}")
            assert page.status_code == 200
            assert "4.0" not in page.text and "alice" not in page.text
            form = form_of(page.text)
            seen.append(form["item"])
            answer = client.post(f"/invite/{token}/rate", data={**form, "score": score},
                                 follow_redirects=False)
            assert answer.status_code == 303, answer.text
        assert seen == ["i002", "i004", "i005"]
        assert "All your items are rated" in client.get(f"/invite/{token}").text
        # an item outside the assignment, or one rated already, is refused
        for item in ("i001", "i002"):
            answer = client.post(f"/invite/{token}/rate", data={**form, "item": item,
                                                                 "score": "1"})
            assert answer.status_code == 409
    with Project.open(path) as project:
        mine = project.ratings().query("annotator == 'bob'").set_index("item_id")["score"]
        assert mine.to_dict() == {"i002": 1.0, "i004": 2.5, "i005": 3.0}
        assert project.rating("i002", "alice") == 4.0


def test_team_remove_revokes_the_link_and_bad_links_are_refused(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=3, checks=0)
    with Project.open(path) as project:
        token = invite(project, "carol")
        machine = project.roster.add_machine("model")
    del machine
    refused = simrate(capsys, "team", "invite", path, "model")
    assert refused.status == 2 and "is a machine rater" in refused.err
    with TestClient(create_app(path), raise_server_exceptions=False) as client:
        page = client.get(f"/invite/{token}")
        assert page.status_code == 200
        form = form_of(page.text)
        # a cross-site page, or a form without the cookie, writes nothing
        assert client.post(f"/invite/{token}/rate", data={**form, "score": "2"},
                           headers={"origin": "https://evil.example"}).status_code == 403
        assert client.post(f"/invite/{token}/rate", data={**form, "token": "x",
                                                          "score": "2"}).status_code == 403
        assert client.post(f"/invite/{token}/rate", data={**form, "score": "2.1"}).status_code \
            == 400
        assert client.get("/invite/" + "A" * 43).status_code == 403
        removed = simrate(capsys, "team", "remove", path, "carol")
        assert removed.status == 0 and "revoked" in removed.out
        assert client.get(f"/invite/{token}").status_code == 403
        answer = client.post(f"/invite/{token}/rate", data={**form, "score": "2"})
        assert answer.status_code == 409
    with Project.open(path) as project:
        assert project.ratings().query("annotator == 'carol'").empty
