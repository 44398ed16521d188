"""simrate crowd review PROJECT STUDY [--json] [--out DIR] [--qualified] [--tolerance X]
simrate crowd bonus PROJECT STUDY (--per-hour RATE | --per-rating AMOUNT) [--top-up-to RATE]
                    [--reward AMOUNT] [--out FILE] [--json]

The two actions after a web study (a part of crowd_cmd.py): the proposal of what to do with
each submission (app/core/team/crowdweb/review.py), and the bonus file Prolific's bulk bonus
takes (app/core/team/crowdweb/pay.py). On an organizer's replica of a hub the study's tasks
are read from the hub first, as `crowd status` does; its ratings are those of the last
`team sync`.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from simrate.core.base.errors import SimrateError

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


def add_parsers(crowd: argparse._SubParsersAction) -> None:
    """`crowd review` and `crowd bonus`."""
    from simrate.commands.option_types import finite_float

    q = crowd.add_parser("review", help="approve, ask to return or reject each worker of a "
                                        "web study, with reasons")
    q.add_argument("project")
    q.add_argument("study", metavar="STUDY")
    q.add_argument("--json", action="store_true")
    q.add_argument("--out", default=None, metavar="DIR")
    q.add_argument("--qualified", action="store_true")
    q.add_argument("--tolerance", type=finite_float, default=None, metavar="X")
    q = crowd.add_parser("bonus", help="the ID,amount bonus file of a web study, with totals")
    q.add_argument("project")
    q.add_argument("study", metavar="STUDY")
    pay = q.add_mutually_exclusive_group(required=True)
    pay.add_argument("--per-hour", default=None, metavar="RATE")
    pay.add_argument("--per-rating", default=None, metavar="AMOUNT")
    q.add_argument("--top-up-to", default=None, metavar="RATE")
    q.add_argument("--reward", default="0", metavar="AMOUNT")
    q.add_argument("--out", default=None, metavar="FILE")
    q.add_argument("--json", action="store_true")
    q.add_argument("--tolerance", type=finite_float, default=None, metavar="X")


def _review(args: argparse.Namespace):
    """The study's review, the hub's tasks read first on an organizer's replica."""
    from simrate.core.project import Project
    from simrate.core.team.crowdweb.review import review_study
    from simrate.core.team.web_study import refuse_annotator_replica

    with Project.open(args.project) as project:
        refuse_annotator_replica(project)
        if project.mode.organizer:
            from simrate.hub.team.web_hub import mirror_hub_studies

            mirror_hub_studies(project)
        return review_study(project, args.study, tolerance=args.tolerance)


def run_review(args: argparse.Namespace) -> int:
    """Print (or write) the proposed decision for every worker of the study."""
    review = _review(args)
    if args.out is not None:
        written = write_review_files(review, Path(args.out), args.qualified)
    elif args.qualified:
        if not args.json:
            for worker in review.of("approve"):
                print(worker.worker)
        written = []
    else:
        written = []
    if args.json:
        print(json.dumps(review.to_json(), ensure_ascii=False, indent=1))
        return 0
    if args.qualified and args.out is None:
        return 0
    _print_review(review)
    for path in written:
        print(f"wrote {path}")
    return 0


def _print_review(review) -> None:
    counts = review.counts()
    median = "no complete submission" if review.median_seconds is None else \
        f"median time {review.median_seconds / 60:.1f} min"
    print(f"study {review.study!r}: " + ", ".join(f"{n} {d.replace('_', ' ')}"
                                                for d, n in counts.items())
          + f"; {median}; checks fail beyond {review.tolerance:g}")
    for worker in review.workers:
        print(f"  {worker.worker}: {worker.decision.replace('_', ' ')}: "
              + "; ".join(worker.reasons))
        for note in worker.notes:
            print(f"      note: {note}")


def write_review_files(review, folder: Path, qualified: bool) -> list[Path]:
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


def review_tables(review, qualified: bool) -> dict[str, list[list[str]]]:
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
    from simrate.formats.atomic import atomic_open

    with atomic_open(path) as handle:
        if path.suffix == ".txt":
            handle.writelines(f"{row[0]}\n" for row in rows)
        else:
            csv.writer(handle, lineterminator="\r\n").writerows(rows)


def run_bonus(args: argparse.Namespace) -> int:
    """Write (or print) the ID,amount lines of the study's bonuses, with their total."""
    from simrate.core.team.crowdweb.pay import bonus_list, money

    rates = {name: None if getattr(args, name) is None else
             money(getattr(args, name), "--" + name.replace("_", "-"))
             for name in ("per_hour", "per_rating", "top_up_to")}
    reward = money(args.reward, "--reward")
    if args.out is not None:
        from simrate.formats.atomic import check_writable_target

        check_writable_target(args.out, [args.project])
    bonuses = bonus_list(_review(args), reward=reward, **rates)
    lines = "".join(f"{worker},{amount}\n" for worker, amount in bonuses.rows())
    if args.out is not None:
        from simrate.formats.atomic import atomic_open

        with atomic_open(args.out) as handle:
            handle.write(lines)
    if args.json:
        print(json.dumps(bonuses.to_json(), ensure_ascii=False, indent=1))
        return 0
    if args.out is None:
        sys.stdout.write(lines)
    median = "no complete submission" if bonuses.median_seconds is None else \
        f"median time {bonuses.median_seconds / 60:.2f} min"
    where = sys.stdout if args.out is not None else sys.stderr
    print(f"{len(bonuses.bonuses)} bonuses, total {bonuses.total:.2f}; {median}; top-up "
          f"floor {bonuses.floor:.2f}; {len(bonuses.left_out)} workers without a bonus"
          + (f"; written to {args.out}" if args.out else ""), file=where)
    return 0
