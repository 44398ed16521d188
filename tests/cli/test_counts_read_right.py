"""No line of the command line reads "1 tasks" or "1 workers"."""

from __future__ import annotations

from simrate.core.project import Project
from simrate.core.team import web_study as web
from tests.cli.helpers import simrate


def test_one_task_one_worker_one_check_item(tmp_path, capsys):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a\tleft a\tright a\nb\tleft b\tright b\nc\tleft c\tright c\n",
                     encoding="utf-8")
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "sts").status == 0
    assert simrate(capsys, "import", path, pairs).status == 0
    done = simrate(capsys, "checks", path, "c", "--score", "2")
    assert "1 check item set to 2" in done.out and "\n1 check item\n" in done.out
    done = simrate(capsys, "crowd", "study", path, "pilot", "--per-task", "2", "--per-item", "1")
    assert done.status == 0, done.err
    assert "tasks of 2 items + 0 checks, at most 1 web rating per item" in done.out
    assert "1 task left" in done.out
    with Project.open(path) as project:
        lease = web.lease(project, "pilot", "w1", session="w1")
        while (slot := web.next_slot(project, lease)) is not None:
            lease, _ = web.rate_slot(project, "pilot", lease.cookie, lease.token, slot.slot, "3")
    status = simrate(capsys, "crowd", "status", path).out
    assert "1 task done" in status and "; 1 worker" in status
    assert "  w1: 1 task done, 2 ratings" in status
    assert "1 tasks" not in status and "1 workers" not in status
