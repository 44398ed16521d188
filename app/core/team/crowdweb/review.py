"""After a web study: approve, ask to return or reject each worker's submission, with reasons.

The proposal follows the rules Prolific sets for requesters (and that suit Mechanical Turk):

- a rejection needs at least REJECT_FAILED_CHECKS failed attention checks. A check fails when
  the worker's score is more than the tolerance away from the check item's known score
  (default TOLERANCE_SHARE of the scale's width); with one check per task no one is rejected;
- speed alone and being a statistical outlier never reject: a worker much faster than the
  study's median (under FAST_SHARE of it, per rating), one whose reliability under the rater
  model (app/core/review/rater_model.py) is far below the study's median, one the check-item
  rule of `annotators --exclude-careless` names (once the worker rated CARELESS_LEAST_CHECKS
  checks in the study: a Pearson over four checks is mostly chance), or one who gave a single
  score to every pair, is asked to return (a person decides, and may message the worker);
- a task the page ended for failed checks (crowdweb/attention.py) is rejected for them;
- a worker the practice pairs screened out (crowdweb/training.py) is set apart too
  (`screened_out`: the platform pays the screen-out code);
- timed-out and unfinished submissions are set apart (`timed_out`, `in_progress`): neither
  approved nor rejected here, since the platform treats them by rules of its own.

Time on task is the server's: from the lease (the worker pressed Start and was shown the
first pair) to the last rating of the task, summed over the worker's tasks in the study.
Nothing the browser reports is used. Only the study's own slots count (a check rated in
another study is not this study's attention check).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.core.project import Project
from simrate.core.team.crowdweb.attention import ENDED, TOLERANCE_SHARE
from simrate.core.team.crowdweb.training import SCREENED
from simrate.core.team.exclusion import careless_reason
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD, annotator_report
from simrate.core.team.teamdb import has_table
from simrate.core.team.web_tables import STUDY_NAME

#: Failed attention checks a rejection needs (Prolific's rule).
REJECT_FAILED_CHECKS = 2
#: Checks a worker must have rated in the study before the check-item Pearson rule speaks
#: (over four checks a careful worker's r often falls below 0.5 by chance).
CARELESS_LEAST_CHECKS = 8
#: A worker under this share of the study's median seconds per rating is "very fast".
FAST_SHARE = 1 / 3
#: A reliability under this share of the study's median is an outlier (never a rejection).
RELIABILITY_SHARE = 0.6
#: Fewest ratings before one score on every pair counts as straight-lining.
STRAIGHT_LEAST = 5
#: The decisions, in the order lists show them; the last two are set apart.
DECISIONS = ("approve", "return", "reject", "timed_out", "in_progress", "screened_out")


@dataclass(frozen=True)
class WorkerReview:
    """One worker's proposed decision in a study, with its reasons and the figures behind it."""

    worker: str
    decision: str
    reasons: list[str]
    sessions: list[str]
    seconds: float  #: the server's time on task, summed over the worker's tasks
    ratings: int
    checks: int
    failed_checks: list[dict]
    complete: bool
    notes: list[str] = field(default_factory=list)
    check_pearson: float | None = None
    reliability: float | None = None

    def to_json(self) -> dict:
        """The review as plain JSON values."""
        return asdict(self)


@dataclass(frozen=True)
class StudyReview:
    """Every worker of a study, the rules applied and the study's medians."""

    study: str
    workers: list[WorkerReview]
    tolerance: float
    median_seconds: float | None  #: median time of the complete submissions
    median_per_rating: float | None

    def counts(self) -> dict[str, int]:
        """Workers per decision (every decision named, 0 when none)."""
        return {d: sum(1 for w in self.workers if w.decision == d) for d in DECISIONS}

    def of(self, decision: str) -> list[WorkerReview]:
        """The workers given this decision."""
        return [w for w in self.workers if w.decision == decision]

    def to_json(self) -> dict:
        """The review as one JSON object (`crowd review --json`)."""
        return {"study": self.study, "counts": self.counts(), "tolerance": self.tolerance,
                "median_seconds": self.median_seconds,
                "median_seconds_per_rating": self.median_per_rating,
                "reject_needs_failed_checks": REJECT_FAILED_CHECKS,
                "workers": [w.to_json() for w in self.workers]}


@dataclass
class _Work:
    """What the study's tables say of one worker."""

    sessions: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    seconds: float = 0.0
    scores: list[float] = field(default_factory=list)
    checks: list[tuple[str, float, float]] = field(default_factory=list)  # id, known, given
    size: int = 0


def _tasks(project: Project, study: str, now: float) -> dict[str, _Work]:
    """Per worker: the sessions, states and server time of their tasks in the study."""
    work: dict[str, _Work] = {}
    rows = project.team_tables.read(
        "SELECT t.worker, t.session, CASE WHEN t.state = 'leased' AND t.expires_at <= ? "
        "THEN 'expired' ELSE t.state END, t.leased_at, (SELECT MAX(s.rated_at) FROM web_slots "
        "s WHERE s.study = t.study AND s.task = t.task), (SELECT COUNT(*) FROM web_slots s "
        "WHERE s.study = t.study AND s.task = t.task AND s.is_check < 2) FROM web_tasks t "
        "WHERE t.study = ? "
        "ORDER BY t.leased_at, t.task", (now, study))
    for worker, session, state, leased_at, last, size in rows:
        entry = work.setdefault(worker, _Work())
        if session and session not in entry.sessions:
            entry.sessions.append(session)
        entry.states.append(state)
        entry.size += int(size)
        if last is not None:
            entry.seconds += max(0.0, float(last) - float(leased_at))
    return work


def _scores(project: Project, study: str, work: dict[str, _Work]) -> None:
    """Each worker's scores in the study's rated slots, and their check items' scores."""
    checks = has_table(project, "check_items")
    known = "c.score" if checks else "NULL"
    join = "LEFT JOIN check_items c ON c.item_ord = s.item_ord AND s.is_check = 1" \
        if checks else ""
    rows = project.team_tables.read(
        f"SELECT t.worker, i.id, r.code, {known} FROM web_slots s JOIN web_tasks t ON "
        "t.study = s.study AND t.task = s.task JOIN items i ON i.ord = s.item_ord JOIN "
        "annotators a ON a.name = t.worker JOIN ratings r ON r.item_ord = s.item_ord AND "
        f"r.annotator_id = a.id {join} WHERE s.study = ? AND s.rated_at IS NOT NULL "
        "AND r.code IS NOT NULL ORDER BY t.task, s.slot", (study,))
    scale = project.scale
    for worker, item_id, code, score in rows:
        entry = work.get(worker)
        if entry is None:
            continue
        given = scale.from_code(int(code))
        entry.scores.append(given)
        if score is not None:
            entry.checks.append((item_id, float(score), given))


def review_study(project: Project, study: str, tolerance: float | None = None,
                 threshold: float = DEFAULT_CHECK_THRESHOLD,
                 now: float | None = None) -> StudyReview:
    """The proposed decision for every worker of `study` (see the module's doc);
    SimrateError when the project has no such study."""
    import time

    if not STUDY_NAME.fullmatch(study or "") or not has_table(project, "web_studies") or \
            not project.team_tables.read("SELECT 1 FROM web_studies WHERE name = ?", (study,)):
        raise SimrateError(f"no web study named {study!r} in this project", project.path)
    scale = project.scale
    tolerance = _tolerance(scale.high - scale.low, tolerance)
    now = time.time() if now is None else now
    work = _tasks(project, study, now)
    _scores(project, study, work)
    report = {row["annotator"]: row for row in annotator_report(project, threshold)}
    done = {w: e for w, e in work.items() if "done" in e.states}
    median = statistics.median([e.seconds for e in done.values()]) if done else None
    per_rating = statistics.median([e.seconds / len(e.scores) for e in done.values()
                                    if e.scores]) if done else None
    reliable = [report[w]["reliability"] for w in done if w in report
                and report[w]["reliability"] is not None]
    medians = {"per_rating": per_rating,
               "reliability": statistics.median(reliable) if reliable else None}
    workers = [_decide(w, e, report.get(w, {}), tolerance, threshold, medians)
               for w, e in sorted(work.items())]
    workers.sort(key=lambda r: (DECISIONS.index(r.decision), r.worker))
    return StudyReview(study, workers, tolerance, median, per_rating)


def _tolerance(width: float, given: float | None) -> float:
    if given is None:
        return round(TOLERANCE_SHARE * width, 6)
    if not (math.isfinite(given) and 0 <= given <= width):
        raise SimrateError(f"--tolerance must lie between 0 and the scale's width "
                           f"({fmt(width)}), not {given:g}")
    return float(given)


def _failed(entry: _Work, tolerance: float) -> list[dict]:
    """The check items the worker missed by more than the tolerance."""
    return [{"item_id": item, "known": known, "given": given}
            for item, known, given in entry.checks if abs(given - known) > tolerance + 1e-9]


def _decide(worker: str, entry: _Work, row: dict, tolerance: float, threshold: float,
            medians: dict) -> WorkerReview:
    """One worker's decision (see the module's doc for the rules)."""
    failed = _failed(entry, tolerance)
    doubts = _doubts(entry, row, threshold, medians)
    complete = "done" in entry.states
    if SCREENED in entry.states and not complete:
        decision = "screened_out"
        reasons = ["did not pass the practice pairs: paid by the platform's screen-out code"]
    elif ENDED in entry.states and not complete and len(failed) >= REJECT_FAILED_CHECKS:
        decision = "reject"
        reasons = ["the page ended the task: " + _failed_line(failed, len(entry.checks),
                                                              tolerance)]
    elif not complete:
        decision = "in_progress" if "leased" in entry.states else "timed_out"
        reasons = [_unfinished(entry, decision)]
    elif len(failed) >= REJECT_FAILED_CHECKS:
        decision = "reject"
        reasons = [_failed_line(failed, len(entry.checks), tolerance)]
    elif doubts:
        decision, reasons = "return", doubts
        doubts = []
    else:
        decision, reasons = "approve", ["the checks and the figures give no cause for doubt"]
    notes = doubts if decision != "return" else []
    if decision != "reject" and failed:
        notes.append(_failed_line(failed, len(entry.checks), tolerance)
                     + f" (a rejection needs {REJECT_FAILED_CHECKS})")
    return WorkerReview(worker, decision, reasons, entry.sessions, round(entry.seconds, 3),
                        len(entry.scores), len(entry.checks), failed, complete, notes,
                        row.get("check_pearson"), row.get("reliability"))


def _doubts(entry: _Work, row: dict, threshold: float, medians: dict) -> list[str]:
    """What calls for a person's look but never for a rejection on its own."""
    doubts = []
    careless = careless_reason(row, threshold) \
        if row and len(entry.checks) >= CARELESS_LEAST_CHECKS else None
    if careless:
        doubts.append(f"check-item rule: {careless}")
    if len(entry.scores) >= STRAIGHT_LEAST and len(set(entry.scores)) == 1:
        doubts.append(f"the score {fmt(entry.scores[0])} for every one of "
                      f"{len(entry.scores)} pairs")
    typical = medians["per_rating"]
    if typical and entry.scores and entry.seconds / len(entry.scores) < FAST_SHARE * typical:
        doubts.append(f"very fast: {entry.seconds / len(entry.scores):.1f} s per rating "
                      f"against the study's median {typical:.1f} s (speed alone is no "
                      "reason to reject)")
    usual, mine = medians["reliability"], row.get("reliability")
    if usual and mine is not None and mine < RELIABILITY_SHARE * usual:
        doubts.append(f"rater model reliability {mine:.2f} against the study's median "
                      f"{usual:.2f} (an outlier, for a person to judge)")
    return doubts


def _failed_line(failed: list[dict], checks: int, tolerance: float) -> str:
    shown = ", ".join(f"{f['item_id']} (known {fmt(f['known'])}, gave {fmt(f['given'])})"
                      for f in failed[:5])
    more = f" and {len(failed) - 5} more" if len(failed) > 5 else ""
    return (f"failed {len(failed)} of {checks} attention checks by more than "
            f"{fmt(tolerance)}: {shown}{more}")


def _unfinished(entry: _Work, decision: str) -> str:
    if decision == "in_progress":
        return f"still working: {len(entry.scores)} of {entry.size} pairs rated"
    return (f"ran out of time (or the study closed) after {len(entry.scores)} of "
            f"{entry.size} pairs: handle as the platform's timed-out or returned submissions")
