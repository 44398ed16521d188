"""The platforms' files of a review: Mechanical Turk's batch upload beside Prolific's lists."""

from __future__ import annotations

import csv

from simrate.core.team.crowdweb.review import StudyReview, WorkerReview
from simrate.services.crowd.crowd_review_files import write_review_files


def worker(name: str, decision: str, session: str, complete: bool = True) -> WorkerReview:
    return WorkerReview(name, decision, [f"why {name}"], [session] if session else [], 60.0,
                        12, 2, [], complete)


def test_mturk_assignments_get_the_batch_upload_file(tmp_path):
    review = StudyReview("s", [worker("A1", "approve", "mturk:ASSIGN1"),
                               worker("A2", "reject", "mturk-sandbox:ASSIGN2"),
                               worker("A3", "return", "mturk:ASSIGN3"),
                               worker("P1", "approve", "PROLIFICSESSION"),
                               worker("T1", "timed_out", "mturk:ASSIGN4", complete=False)],
                         1.5, 60.0, 5.0)
    written = write_review_files(review, tmp_path / "out", qualified=True)
    assert sorted(p.name for p in written) == ["apart.csv", "approve.txt", "mturk.csv",
                                               "qualified.txt", "reject.csv", "return.csv"]
    turk = list(csv.DictReader((tmp_path / "out" / "mturk.csv").open(newline="")))
    assert [(r["AssignmentId"], r["WorkerId"], r["Approve"], r["Reject"]) for r in turk] == [
        ("ASSIGN1", "A1", "x", ""), ("ASSIGN2", "A2", "", "why A2"), ("ASSIGN3", "A3", "", "")]
    assert (tmp_path / "out" / "approve.txt").read_text() == "A1\nP1\n"
    apart = list(csv.DictReader((tmp_path / "out" / "apart.csv").open(newline="")))
    assert [(r["participant_id"], r["state"]) for r in apart] == [("T1", "timed_out")]


def test_without_turk_tasks_there_is_no_turk_file(tmp_path):
    review = StudyReview("s", [worker("P1", "approve", "S1")], 1.5, 60.0, 5.0)
    names = {p.name for p in write_review_files(review, tmp_path, qualified=False)}
    assert names == {"apart.csv", "approve.txt", "reject.csv", "return.csv"}
