"""crowd study --failed-checks on a real simrate serve: a warning after C failed checks, the
task ended with the partial code at C + 1, and crowd review rejecting it for them."""

from __future__ import annotations

import re

import httpx

from simrate.core.team.crowdweb.attention import warning
from tests.cli.helpers import simrate
from tests.web.client import completion_code, item_page, rate, start
from tests.web.projects import make_project
from tests.web.servers import Server

KNOWN = {"c1": 1.0, "c2": 2.0, "c3": 3.0}  # make_project's check items


def rate_all(client, wrong: int) -> tuple[str, list[bool]]:
    """Rate the task, the first `wrong` checks far off; (the code, warning shown per page)."""
    warned, missed = [], 0
    for _ in range(20):
        page = item_page(client, "s")
        assert page.status_code == 200, page.text
        code = completion_code(page.text)
        if code:
            return code, warned
        warned.append('id="check-warning"' in page.text)
        item = re.search(r'id="left">left text ([^<]*)<', page.text).group(1)
        score = "2"
        if item in KNOWN:
            score = f"{KNOWN[item]:g}"
            if missed < wrong:
                score, missed = ("4" if KNOWN[item] < 2 else "0"), missed + 1
        assert rate(client, "s", page.text, score).status_code == 200
    raise AssertionError("the task never ended")


def test_warning_then_the_end_with_the_partial_code(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=30, checks=3)
    made = simrate(capsys, "crowd", "study", path, "s", "--per-task", 4, "--checks", 3,
                   "--failed-checks", 1, "--completion-code", "FULLCODE",
                   "--partial-code", "PARTCODE")
    assert made.status == 0, made.err
    with Server(path) as server:
        with httpx.Client(base_url=server.url) as client:
            assert start(client, "s", "ONCE").status_code == 303
            code, warned = rate_all(client, wrong=1)
            assert code == "FULLCODE" and len(warned) == 7
            first = warned.index(True)  # every page after the first failed check warns
            assert all(warned[first:]) and not any(warned[:first])
        with httpx.Client(base_url=server.url) as client:
            assert start(client, "s", "TWICE").status_code == 303
            code, warned = rate_all(client, wrong=2)
            assert code == "PARTCODE" and len(warned) < 7
            page = item_page(client, "s")
            assert "ended early" in page.text and completion_code(page.text) == "PARTCODE"
        with httpx.Client(base_url=server.url) as other:  # the link again: no new task
            again = start(other, "s", "TWICE")
            assert again.status_code == 200 and completion_code(again.text) == "PARTCODE"
        review = simrate(capsys, "crowd", "review", path, "s", "--json").json()
        assert server.stop()[0] == 0
    decisions = {w["worker"]: (w["decision"], len(w["failed_checks"])) for w in review["workers"]}
    assert decisions == {"ONCE": ("approve", 1), "TWICE": ("reject", 2)}
    twice = next(w for w in review["workers"] if w["worker"] == "TWICE")
    assert twice["reasons"][0].startswith("the page ended the task: failed 2 of")


def test_the_warning_counts_follow_the_setting():
    assert warning(0, 1) == "" and warning(1, 2) == "" and warning(1, 0) == ""
    assert "on 1 check pair " in warning(1, 1) and "At 2, the task ends" in warning(1, 1)
    assert "on 3 check pairs" in warning(3, 3) and "At 4," in warning(3, 3)


def test_failed_checks_setting_is_checked(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=4, checks=1)
    bad = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2, "--failed-checks", 99)
    assert bad.status == 2 and "--failed-checks" in bad.err and bad.err.count("\n") == 1
