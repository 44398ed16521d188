"""crowd study --allow-workers / --block-workers on a real simrate serve."""

from __future__ import annotations

import httpx
import pytest

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.crowdweb.access import NOT_FOR_YOU
from tests.cli.helpers import simrate
from tests.web.client import start, whole_task
from tests.web.projects import make_project
from tests.web.servers import Server


def landing(client, worker: str):
    return client.get(f"/study/s?PROLIFIC_PID={worker}&STUDY_ID=x&SESSION_ID=y")


def test_listed_workers_only_and_blocked_ones_get_a_page_not_a_task(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=12, checks=1)
    allow, block = tmp_path / "allow.txt", tmp_path / "block.txt"
    allow.write_text("# invited again\ngood1\nGOOD2, blocked1\n\n")
    block.write_text("blocked1\n")
    made = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2,
                   "--allow-workers", allow, "--block-workers", block)
    assert made.status == 0, made.err
    assert "3 listed worker" in made.out and "may start (--allow-workers)" in made.out
    assert "1 listed worker" in made.out and "kept out (--block-workers)" in made.out
    with Server(path) as server, httpx.Client(base_url=server.url) as client:
        for worker in ("blocked1", "stranger"):
            page = landing(client, worker)
            assert page.status_code == 403 and NOT_FOR_YOU in page.text
            assert 'id="start"' not in page.text
        assert whole_task(client, "s", "GOOD1")[0]  # the id's key: good1 is listed
        with httpx.Client(base_url=server.url) as other:
            assert start(other, "s", "good2").status_code == 303
        assert server.stop()[0] == 0
    with Project.open(path) as project:
        with pytest.raises(web.WebRefusal) as refused:  # the file's lease refuses too
            web.lease(project, "s", "stranger")
        assert refused.value.status == 403
        assert sorted(web.get_study(project, "s").option("allow_workers")) == [
            "blocked1", "good1", "good2"]
    empty = tmp_path / "none.txt"
    empty.write_text("")
    assert simrate(capsys, "crowd", "study", path, "s", "--allow-workers", empty).status == 0
    with Project.open(path) as project:
        assert web.get_study(project, "s").option("allow_workers") is None
        assert web.lease(project, "s", "stranger").task  # anyone but the blocked
        with pytest.raises(web.WebRefusal):
            web.lease(project, "s", "BLOCKED1")


def test_a_bad_worker_list_is_one_line_naming_file_and_line(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=4, checks=0)
    bad = tmp_path / "bad.txt"
    bad.write_text("w1\nw2 has spaces\n")
    result = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2, "--block-workers", bad)
    assert result.status == 2 and f"{bad}:2:" in result.err and "--block-workers" in result.err
    assert result.err.count("\n") == 1
    folder = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2,
                     "--allow-workers", tmp_path)
    assert folder.status == 2 and folder.err.count("\n") == 1
    with Project.open(path) as project:
        assert web.get_study(project, "s") is None  # nothing was made
