"""simrate crowd study / crowd status / serve on the command line."""

from __future__ import annotations

import subprocess
import sys

from simrate.core.project import Project
from simrate.core.team import web_study as web
from tests.cli.helpers import simrate
from tests.web.projects import make_project
from tests.web.servers import ROOT, Server


def test_crowd_study_creates_changes_and_closes(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=20, checks=3)
    made = simrate(capsys, "crowd", "study", path, "s1", "--per-task", 4, "--checks", 2,
                   "--per-item", 3, "--lease-minutes", 30,
                   "--completion-url", "https://example.org/c?cc=1")
    assert made.status == 0, made.err
    assert "created" in made.out and "/study/s1?PROLIFIC_PID=" in made.out
    changed = simrate(capsys, "crowd", "study", path, "s1", "--per-item", 1)
    assert changed.status == 0 and "changed" in changed.out
    status = simrate(capsys, "crowd", "status", path, "--json").json()["studies"]["s1"]
    assert status["per_task"] == 4 and status["checks"] == 2 and status["per_item"] == 1
    assert status["lease_minutes"] == 30 and status["tasks"]["left"] == 5
    assert status["completion_url"] == "https://example.org/c?cc=1"
    closed = simrate(capsys, "crowd", "study", path, "s1", "--close")
    assert closed.status == 0 and "closed" in closed.out
    text = simrate(capsys, "crowd", "status", path)
    assert text.status == 0 and text.out.startswith("s1 (closed): 0 tasks done")


def test_crowd_status_counts_tasks_ratings_and_workers(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=6, checks=1)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, checks=1, per_item=1)
        lease = web.lease(project, "s", "W1")
        while (slot := web.next_slot(project, lease)) is not None:
            lease, _ = web.rate_slot(project, "s", lease.cookie, lease.token, slot.slot, "1")
        web.lease(project, "s", "W2")
    status = simrate(capsys, "crowd", "status", path, "--json").json()["studies"]["s"]
    assert status["tasks"] == {"done": 1, "leased": 1, "expired": 0, "left": 0}
    assert status["ratings_per_item"] == {"0": 3, "1": 3}
    assert status["workers"] == {"W1": {"tasks_done": 1, "ratings": 4},
                                 "W2": {"tasks_done": 0, "ratings": 0}}


def test_crowd_study_refuses_bad_settings_in_one_line(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=5, checks=1)
    for args, words in (((), "needs --per-task"), (("--per-task", 0), "--per-task"),
                        (("--per-task", 2, "--checks", 2), "check items"),
                        (("--per-task", 2, "--completion-url", "ftp://x"), "http"),
                        (("--close",), "no web study")):
        result = simrate(capsys, "crowd", "study", path, "s", *args)
        assert result.status == 2 and words in result.err
        assert result.err.count("\n") == 1 and "Traceback" not in result.err


def serve(*args):
    return subprocess.run([sys.executable, "-m", "simrate", "serve", *map(str, args)],
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_serve_refuses_a_missing_project_and_a_busy_port_in_one_line(tmp_path):
    missing = serve(tmp_path / "none.simrate", "--port", 0)
    assert missing.returncode == 2 and missing.stderr.startswith("simrate: error:")
    assert missing.stderr.count("\n") == 1
    path = make_project(tmp_path / "p.simrate", items=3, checks=0)
    with Server(path) as running:
        busy = serve(path, "--port", running.port)
        assert busy.returncode == 2 and "cannot listen on 127.0.0.1" in busy.stderr
        assert busy.stderr.count("\n") == 1
        assert running.stop()[0] == 0


def test_an_annotators_replica_is_refused_in_one_line(tmp_path, capsys):
    """Web studies are the organizer's: an annotator's replica holds only that person's
    ratings (tests/hub/test_web_hub.py serves an organizer's replica through the hub)."""
    path = make_project(tmp_path / "p.simrate", items=3, checks=0)
    with Project.open(path) as project, project.team_tables.transaction() as conn:
        conn.execute("INSERT INTO meta VALUES ('hub_url', 'postgresql://hub.example/x')")
        conn.execute("INSERT INTO meta VALUES ('hub_kind', 'annotator')")
    study = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2)
    assert study.status == 2 and "annotator's replica" in study.err
    served = serve(path, "--port", 0)
    assert served.returncode == 2 and "annotator's replica" in served.stderr
    assert served.stderr.count("\n") == 1


def test_exclude_careless_drops_a_careless_web_worker(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=12, checks=3)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=4, checks=3, per_item=2)
        for worker, good in (("careful", True), ("careless", False)):
            lease = web.lease(project, "s", worker)
            while (slot := web.next_slot(project, lease)) is not None:
                item = project.item_id_for_ord(slot.item_ord)
                known = {"c1": "1", "c2": "2", "c3": "3"}
                score = known.get(item, "2") if good else "4"
                lease, _ = web.rate_slot(project, "s", lease.cookie, lease.token, slot.slot,
                                         score)
    result = simrate(capsys, "annotators", path, "--exclude-careless", "--by", "me")
    assert result.status == 0, result.err
    with Project.open(path) as project:
        assert project.excluded_annotators() == ["careless"]
        report = {r["annotator"]: r for r in
                  simrate(capsys, "annotators", path, "--json").json()}
    assert report["careless"]["checks"] == 3 and report["careless"]["flagged"]
    assert report["careful"]["check_pearson"] == 1.0 and not report["careful"]["flagged"]
    assert report["careful"]["seconds_per_item"] is not None


def test_crowd_study_takes_the_platforms_code_instructions_and_consent(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=8, checks=1)
    (tmp_path / "how.md").write_text("# How\n\nRate **both** texts.\n", encoding="utf-8")
    (tmp_path / "consent.md").write_text("- I agree\n", encoding="utf-8")
    made = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2,
                   "--completion-code", "C1ABC2", "--partial-code", "PART",
                   "--prolific-study", "64f0", "--instructions", tmp_path / "how.md",
                   "--consent", tmp_path / "consent.md", "--redirect-seconds", 5,
                   "--completion-url", "https://app.prolific.com/submissions/complete?cc={code}")
    assert made.status == 0, made.err
    assert "completion code C1ABC2" in made.out
    status = simrate(capsys, "crowd", "status", path, "--json").json()["studies"]["s"]
    assert status["completion_code"] == "C1ABC2" and status["partial_code"] == "PART"
    assert status["prolific_study"] == "64f0"
    with Project.open(path) as project:
        study = web.get_study(project, "s")
    assert study.option("instructions").startswith("# How") and study.option("consent")
    assert study.option("redirect_seconds") == 5
    # a later change keeps them; an empty value takes one away
    simrate(capsys, "crowd", "study", path, "s", "--per-item", 2, "--partial-code", "")
    with Project.open(path) as project:
        study = web.get_study(project, "s")
    assert study.code == "C1ABC2" and study.option("partial_code") is None
    assert study.option("consent") == "- I agree\n"


def test_crowd_study_refuses_bad_page_options_with_one_line(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=8, checks=1)
    (tmp_path / "bad.md").write_bytes(b"fine\nline two \xff\n")
    cases = [(["--instructions", tmp_path / "bad.md"], f"{tmp_path / 'bad.md'}:2: not UTF-8"),
             (["--consent", tmp_path / "missing.md"], "missing.md"),
             (["--completion-code", "a b"], "--completion-code"),
             (["--completion-url", "https://x/?c={secret}"], "placeholders"),
             (["--completion-url", "javascript:alert(1)"], "--completion-url"),
             (["--allow-frame-from", "javascript:x"], "--allow-frame-from"),
             (["--redirect-seconds", 9999], "--redirect-seconds")]
    for options, words in cases:
        refused = simrate(capsys, "crowd", "study", path, "s", "--per-task", 2, *options)
        assert refused.status == 2, options
        lines = refused.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("simrate: error: ") and words in lines[0]
        assert "Traceback" not in refused.err
    with Project.open(path) as project:
        assert web.studies(project) == []
