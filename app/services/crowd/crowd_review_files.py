"""The files the platforms take after a web study, written for `crowd review --out DIR` and
`crowd bonus --out FILE` (and for the window's web-studies panel): the review's approve,
reject, return and set-apart lists, Mechanical Turk's batch upload, the workers to invite
again (app/core/team/crowdweb/review.py), and Prolific's bulk bonus lines
(app/core/team/crowdweb/pay.py). Each file is written whole or not at all."""

from __future__ import annotations

import csv
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.team.crowdweb.pay import BonusList
from simrate.core.team.crowdweb.review import StudyReview

#: The decisions set apart (apart.csv).
APART = ("timed_out", "in_progress", "screened_out")
#: The files `crowd review --out DIR` writes, and what each is for.
REVIEW_FILES = {
    "approve.txt": "worker ids, one a line: Prolific's bulk approve",
    "reject.csv": "participant_id, session_id, category, reason: one rejection a row",
    "return.csv": "participant_id, session_id, reason: workers to ask to return",
    "apart.csv": "participant_id, session_id, state, ratings, reason: timed out, unfinished, "
                 "screened out",
    "mturk.csv": "AssignmentId, WorkerId, Approve, Reject: the requester site's batch upload",
    "qualified.txt": "worker ids to invite again (with --qualified; crowd study "
                     "--allow-workers reads it)",
}


def write_review_files(review: StudyReview, folder: Path, qualified: bool) -> list[Path]:
    """Write the files of REVIEW_FILES into `folder` (made if missing), each atomically;
    mturk.csv only when a task came from Mechanical Turk. Returns the paths written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimrateError(f"cannot make the folder: {exc.strerror}", folder) from None
    if not folder.is_dir():
        raise SimrateError("not a folder", folder)
    tables = review_tables(review, qualified)
    written = []
    for name, rows in tables.items():
        _write_rows(folder / name, rows)
        written.append(folder / name)
    return written


def review_tables(review: StudyReview, qualified: bool) -> dict[str, list[list[str]]]:
    """The rows of each file (REVIEW_FILES) for this review; a .txt file has one column and
    no header."""
    def session(worker) -> str:
        return ";".join(worker.sessions)

    tables = {
        "approve.txt": [[w.worker] for w in review.of("approve")],
        "reject.csv": [["participant_id", "session_id", "category", "reason"]] + [
            [w.worker, session(w), "FAILED_CHECK", "; ".join(w.reasons)]
            for w in review.of("reject")],
        "return.csv": [["participant_id", "session_id", "reason"]] + [
            [w.worker, session(w), "; ".join(w.reasons)] for w in review.of("return")],
        "apart.csv": [["participant_id", "session_id", "state", "ratings", "reason"]] + [
            [w.worker, session(w), w.decision, str(w.ratings), "; ".join(w.reasons)]
            for w in review.workers if w.decision in APART],
    }
    turk = [[s.partition(":")[2], w.worker, "x" if w.decision == "approve" else "",
             "; ".join(w.reasons) if w.decision == "reject" else ""]
            for w in review.workers if w.complete for s in w.sessions
            if s.startswith(("mturk:", "mturk-sandbox:"))]
    if turk:
        tables["mturk.csv"] = [["AssignmentId", "WorkerId", "Approve", "Reject"], *turk]
    if qualified:
        tables["qualified.txt"] = [[w.worker] for w in review.of("approve")]
    return tables


def _write_rows(path: Path, rows: list[list[str]]) -> None:
    from simrate.formats.output.atomic import atomic_open

    with atomic_open(path) as handle:
        if path.suffix == ".txt":
            handle.writelines(f"{row[0]}\n" for row in rows)
        else:
            csv.writer(handle, lineterminator="\r\n").writerows(rows)




def write_bonus_file(bonuses: BonusList, path: str | Path) -> None:
    """Prolific's bulk bonus lines, `ID,amount` (two decimals, no header)."""
    from simrate.formats.output.atomic import atomic_open

    with atomic_open(path) as handle:
        handle.writelines(f"{worker},{amount}\n" for worker, amount in bonuses.rows())
