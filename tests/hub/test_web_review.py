"""crowd review and crowd bonus on an organizer's hub replica: the hub's tasks are read
first (as crowd status does), the ratings are those of the last sync; the page's attention
checks and practice are refused there in one line."""

from __future__ import annotations

import json
import re

import httpx

from simrate.cli import main
from simrate.core.project import Project
from simrate.hub.team.sync import sync_once
from tests.hub.webhub import published_study
from tests.web.client import form_of, start
from tests.web.servers import Server

KNOWN = {"c1": "1", "c2": "2", "c3": "3"}


def task(url: str, worker: str, careful: bool, stop_after: int | None = None) -> None:
    client = httpx.Client(base_url=url, timeout=10)
    assert start(client, "s", worker).status_code == 303
    rated = 0
    while rated != stop_after:
        page = client.get("/study/s/task", follow_redirects=True)
        if 'id="completion-code"' in page.text:
            return
        item = re.search(r'id="left">left text ([^<]*)<', page.text).group(1)
        score = KNOWN.get(item, "2") if careful else ("4" if KNOWN.get(item, "2") < "2" else "0")
        assert client.post("/study/s/rate", data={**form_of(page.text),
                                                  "score": score}).status_code == 200
        rated += 1


def test_review_and_bonus_of_a_hub_study(hub, tmp_path, capsys):
    path, _ = published_study(hub, tmp_path, items=20, checks=3, per_task=3, n_checks=3,
                              annotator=None)
    with Server(path) as server:
        task(server.url, "GOOD", careful=True)
        task(server.url, "SLOPPY", careful=False)
        task(server.url, "MIDWAY", careful=True, stop_after=2)
        assert server.stop()[0] == 0
    with Project.open(path) as project:
        sync_once(project)
    capsys.readouterr()
    assert main(["crowd", "review", str(path), "s", "--json"]) == 0
    review = json.loads(capsys.readouterr().out)
    assert {w["worker"]: w["decision"] for w in review["workers"]} == {
        "GOOD": "approve", "SLOPPY": "reject", "MIDWAY": "in_progress"}
    sloppy = next(w for w in review["workers"] if w["worker"] == "SLOPPY")
    assert len(sloppy["failed_checks"]) == 3 and sloppy["seconds"] > 0
    assert main(["crowd", "bonus", str(path), "s", "--per-rating", "0.10"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "GOOD,0.60\n" and "1 bonuses, total 0.60" in captured.err


def test_the_pages_checks_and_practice_are_refused_on_a_hub(hub, tmp_path, capsys):
    path, _ = published_study(hub, tmp_path, items=6, checks=3, annotator=None)
    for more in (("--failed-checks", "1"),
                 ("--training", "1", "--screen-out-code", "SCR1", "--checks", "1")):
        capsys.readouterr()
        assert main(["crowd", "study", str(path), "s", *more]) == 2
        err = capsys.readouterr().err
        assert "plain project file" in err and err.count("\n") == 1
