"""The web page answers an error with the status of its type, never of its words: the core
raises a typed refusal where it refuses (a score off the scale, a page behind the project)
and the page maps the type to the status (app/web/security.py `status_of`)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team import invites
from simrate.core.team.web_tables import PageOutdated, ScoreRefused, WebRefusal
from simrate.web.pages import create_app
from simrate.web.security import Refused, status_of
from tests.web.client import form_of
from tests.web.projects import make_project


def test_the_status_follows_the_type_whatever_the_message_says():
    # each message starts with words that once chose another status
    assert status_of(ScoreRefused("this item is not the one to rate now")) == 400
    assert status_of(PageOutdated("score 9 is not a value")) == 409
    assert status_of(WebRefusal("this study is closed", 410)) == 410
    assert status_of(WebRefusal("the score must be a value of the scale")) == 400
    assert status_of(Refused("too many requests; wait a moment", 429)) == 429
    assert status_of(SimrateError("score 9 is not a value")) == 503  # the file busy: no detail
    assert status_of(SimrateError("this item is not the one to rate now")) == 503
    assert status_of(ValueError("score")) == 500


def test_the_core_raises_the_typed_refusals_where_it_refuses(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=3, checks=0)
    with Project.open(path) as project:
        project.roster.add("bob")
        token = invites.invite(project, "bob")
        with pytest.raises(ScoreRefused, match=r"^the score must be a value of the scale "):
            invites.rate_invited(project, token, "i001", "2.1")
        with pytest.raises(PageOutdated):  # not the item the page showed
            invites.rate_invited(project, token, "i002", "2")
        with pytest.raises(PageOutdated):
            invites.rate_invited(project, "A" * 43, "i001", "2")
        assert project.rating("i001", "bob") is None


def test_the_page_answers_each_refusal_with_its_types_status(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=3, checks=0)
    with Project.open(path) as project:
        project.roster.add("bob")
        token = invites.invite(project, "bob")
        scale = project.scale.describe()
    with TestClient(create_app(path), raise_server_exceptions=False) as client:
        form = form_of(client.get(f"/invite/{token}").text)
        off = client.post(f"/invite/{token}/rate", data={**form, "score": "2.1"})
        assert off.status_code == 400
        assert f"the score must be a value of the scale {scale}" in off.text
        behind = client.post(f"/invite/{token}/rate", data={**form, "item": "i003",
                                                            "score": "2"})
        assert behind.status_code == 409
        assert "this item is not the one to rate now" in behind.text
        done = client.post(f"/invite/{token}/rate", data={**form, "score": "2"},
                           follow_redirects=False)
        assert done.status_code == 303
    with Project.open(path) as project:
        assert project.rating("i001", "bob") == 2.0
        assert project.rating("i003", "bob") is None
