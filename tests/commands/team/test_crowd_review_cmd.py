"""crowd review and crowd bonus on a real `simrate serve`, with workers over HTTP."""

from __future__ import annotations

import csv
import re
from decimal import Decimal

import httpx

from tests.cli.helpers import simrate
from tests.web.client import completion_code, item_page, rate, start
from tests.web.projects import make_project
from tests.web.servers import Server

#: make_project's check items and their known scores (c1: 1, c2: 2, c3: 3).
KNOWN = {"c1": 1.0, "c2": 2.0, "c3": 3.0}


def work(url: str, worker: str, wrong_checks: int, stop_after: int | None = None) -> str:
    """One worker's task over HTTP: pairs rated 2, checks answered right except the first
    `wrong_checks` (answered 4 points away... as far as the 0-4 scale goes); returns the code
    ('' when stopped early)."""
    with httpx.Client(base_url=url) as client:
        assert start(client, "s", worker, session=f"SES{worker}").status_code == 303
        wrong, rated = 0, 0
        while True:
            page = item_page(client, "s")
            code = completion_code(page.text)
            if code or rated == stop_after:
                return code or ""
            item = re.search(r'id="left">left text ([^<]*)<', page.text).group(1)
            score = "2"
            if item in KNOWN:
                score = f"{KNOWN[item]:g}"
                if wrong < wrong_checks:
                    score, wrong = ("4" if KNOWN[item] < 2 else "0"), wrong + 1
            assert rate(client, "s", page.text, score).status_code == 200
            rated += 1


def test_review_and_bonus_of_a_served_study(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=40, checks=3)
    assert simrate(capsys, "crowd", "study", path, "s", "--per-task", 3, "--checks", 3,
                   "--per-item", 3).status == 0
    with Server(path) as server:
        for n in range(6):
            assert work(server.url, f"GOOD{n}", 0)
        assert work(server.url, "ONEMISS", 1)  # one failed check: never a rejection
        assert work(server.url, "BAD1", 3) and work(server.url, "BAD2", 2)
        assert work(server.url, "HALF", 0, stop_after=2) == ""  # still holds its lease
        review = simrate(capsys, "crowd", "review", path, "s", "--json").json()
        out = tmp_path / "out"
        files = simrate(capsys, "crowd", "review", path, "s", "--out", out, "--qualified")
        bonus = simrate(capsys, "crowd", "bonus", path, "s", "--per-rating", "0.05",
                        "--out", tmp_path / "bonus.csv")
        assert server.stop()[0] == 0
    decisions = {w["worker"]: w["decision"] for w in review["workers"]}
    assert decisions == {**{f"GOOD{n}": "approve" for n in range(6)}, "ONEMISS": "approve",
                         "BAD1": "reject", "BAD2": "reject", "HALF": "in_progress"}
    bad = next(w for w in review["workers"] if w["worker"] == "BAD1")
    assert len(bad["failed_checks"]) == 3 and "failed 3 of 3 attention checks" in bad["reasons"][0]
    one = next(w for w in review["workers"] if w["worker"] == "ONEMISS")
    assert any("a rejection needs 2" in note for note in one["notes"])
    assert files.status == 0, files.err
    assert (out / "approve.txt").read_text().split() == sorted(
        [f"GOOD{n}" for n in range(6)] + ["ONEMISS"])
    rejected = list(csv.DictReader((out / "reject.csv").open(newline="")))
    assert [(r["participant_id"], r["session_id"], r["category"]) for r in rejected] == [
        ("BAD1", "SESBAD1", "FAILED_CHECK"), ("BAD2", "SESBAD2", "FAILED_CHECK")]
    assert "attention checks" in rejected[0]["reason"]
    apart = list(csv.DictReader((out / "apart.csv").open(newline="")))
    assert [(r["participant_id"], r["state"], r["ratings"]) for r in apart] == [
        ("HALF", "in_progress", "2")]
    assert (out / "qualified.txt").read_text() == (out / "approve.txt").read_text()
    assert not (out / "mturk.csv").exists()
    assert bonus.status == 0, bonus.err
    lines = (tmp_path / "bonus.csv").read_text().splitlines()
    assert sorted(lines) == sorted(f"{w},0.30" for w in [f"GOOD{n}" for n in range(6)]
                                   + ["ONEMISS"])  # 6 ratings each, approved only
    assert "7 bonuses, total 2.10" in bonus.out
    assert sum(Decimal(line.split(",")[1]) for line in lines) == Decimal("2.10")


def test_review_and_bonus_refuse_bad_input_in_one_line(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=5, checks=1)
    assert simrate(capsys, "crowd", "study", path, "s", "--per-task", 2).status == 0
    for args, words in ((("review", path, "nope"), "no web study named 'nope'"),
                        (("bonus", path, "s", "--per-hour", "ten"), "--per-hour: 'ten'"),
                        (("bonus", path, "s", "--per-rating", "-1"), "--per-rating"),
                        (("bonus", path, "s", "--per-hour", "9", "--top-up-to", "nan"),
                         "--top-up-to"),
                        (("review", path, "s", "--tolerance", "9"), "--tolerance")):
        result = simrate(capsys, "crowd", *args)
        assert result.status == 2 and words in result.err, result.err
        assert result.err.count("\n") == 1 and "Traceback" not in result.err
    both = simrate(capsys, "crowd", "bonus", path, "s", "--per-hour", "9", "--per-rating", "1")
    assert both.status == 2 and "not allowed with" in both.err
