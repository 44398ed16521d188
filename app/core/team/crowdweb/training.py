"""A training phase before a web study's real pairs (`crowd study --training N --pass RULE
--screen-out-code CODE`).

Each task starts with N practice pairs drawn from the check items (known scores), in slots
1..N of the task (`web_slots.is_check` = TRAINING), never from the task's own attention
checks. After each answer the page shows the reference score and the worker's difference.
The answers go into a table of their own (`web_training`), never into the ratings: they
never count in agreement, gold, the check-item rule or the review, and the worker is no
rater until a first real rating. Once the N answers are in, the rule decides:

- `K@D`: at least K of the N answers within D of the reference (D on the scale);
- `mae<=X`: their mean absolute difference at most X;
- default: every answer within the review's tolerance (crowdweb/attention.py).

A task that fails is screened out (state `screened`): its pairs go back to the pool, the page
shows the screen-out code (what Prolific calls a screen-out completion code), and opening
the link again shows it again. Served from a plain project file (the hub keeps no known
scores of check items).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale, fmt
from simrate.core.team.crowdweb.attention import default_tolerance

#: web_slots.is_check of a practice slot (0: a pair of the pool, 1: an attention check).
TRAINING = 2
#: The task's state once the rule screened the worker out.
SCREENED = "screened"
#: The most practice pairs a task may start with.
MOST_TRAINING = 20
TRAINING_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_training (
    study TEXT NOT NULL,
    task TEXT NOT NULL,
    slot INTEGER NOT NULL,
    code INTEGER NOT NULL,
    known REAL NOT NULL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (study, task, slot)
) WITHOUT ROWID;
"""
_WITHIN = re.compile(r"(\d{1,2})@(\d{1,3}(?:\.\d{1,6})?)")
_MAE = re.compile(r"mae<=(\d{1,3}(?:\.\d{1,6})?)")


@dataclass(frozen=True)
class PassRule:
    """When the practice answers let a worker on to the real pairs."""

    least: int | None = None  #: K of K@D
    within: float | None = None  #: D of K@D
    mae: float | None = None

    def passes(self, differences: list[float]) -> bool:
        """Whether these answers' differences from the references pass."""
        gaps = [abs(d) for d in differences]
        if self.mae is not None:
            return bool(gaps) and sum(gaps) / len(gaps) <= self.mae + 1e-9
        within = self.within if self.within is not None else 0.0
        least = self.least if self.least is not None else len(gaps)
        return sum(1 for g in gaps if g <= within + 1e-9) >= least

    def describe(self) -> str:
        """The rule in words, for the page."""
        if self.mae is not None:
            return f"an average difference of at most {fmt(self.mae)}"
        return f"at least {self.least} answers within {fmt(self.within or 0)} of the reference"


def parse_rule(text: str) -> PassRule:
    """A --pass RULE (`K@D` or `mae<=X`); SimrateError saying what is wanted."""
    text = (text or "").strip().lower().replace(" ", "")
    found = _WITHIN.fullmatch(text)
    if found:
        return PassRule(least=int(found.group(1)), within=float(found.group(2)))
    found = _MAE.fullmatch(text)
    if found:
        return PassRule(mae=float(found.group(1)))
    raise SimrateError(f"--pass: {text[:30]!r} is no rule: K@D (at least K answers within D "
                       "of the reference) or mae<=X (mean absolute difference at most X)")


def study_rule(study: Any, scale: Scale) -> PassRule:
    """The study's rule: its --pass, else every answer within the review's tolerance."""
    given = study.option("pass_rule")
    if given:
        return parse_rule(given)
    return PassRule(least=int(study.option("training", 0)), within=default_tolerance(scale))


def check_training(study: Any, known_checks: int, scale: Scale) -> None:
    """SimrateError when the study's training settings cannot work together."""
    count = int(study.option("training", 0) or 0)
    if not count:
        return
    if not study.option("screen_out_code"):
        raise SimrateError("--training needs --screen-out-code CODE (the platform's code for "
                           "workers screened out)")
    if count + study.checks > known_checks:
        raise SimrateError(f"--training {count} and --checks {study.checks} need "
                           f"{count + study.checks} check items; the project has {known_checks} "
                           "(mark some: simrate checks)")
    rule = study_rule(study, scale)
    if rule.least is not None and rule.least > count:
        raise SimrateError(f"--pass {study.option('pass_rule')}: asks for {rule.least} "
                           f"answers, but there are {count} practice pairs")


def is_training(conn: sqlite3.Connection, study: str, task: str, slot: int) -> bool:
    """Whether this slot of the task is a practice pair."""
    return conn.execute("SELECT 1 FROM web_slots WHERE study = ? AND task = ? AND slot = ? "
                        "AND is_check = ?", (study, task, slot, TRAINING)).fetchone() is not None


def answer(conn: sqlite3.Connection, study: Any, task: str, slot: int, code: int,
           now: float) -> bool:
    """Keep one practice answer (the first one counts: answers are final) and, with the
    last one, apply the rule. Inside the rating's write transaction; whether it was kept."""
    conn.execute(TRAINING_SCHEMA)
    row = conn.execute("SELECT s.rated_at, c.score FROM web_slots s JOIN check_items c ON "
                       "c.item_ord = s.item_ord WHERE s.study = ? AND s.task = ? AND "
                       "s.slot = ?", (study.name, task, slot)).fetchone()
    if row is None or row[0] is not None:
        return False
    conn.execute("INSERT INTO web_training VALUES (?,?,?,?,?,?)",
                 (study.name, task, slot, code, float(row[1]), now))
    conn.execute("UPDATE web_slots SET rated_at = ? WHERE study = ? AND task = ? AND slot = ?",
                 (now, study.name, task, slot))
    return True


def screened(conn: sqlite3.Connection, study: Any, task: str, scale: Scale) -> bool:
    """Whether the task's practice is over and failed the study's rule."""
    left = conn.execute("SELECT COUNT(*) FROM web_slots WHERE study = ? AND task = ? AND "
                        "is_check = ? AND rated_at IS NULL", (study.name, task, TRAINING)
                        ).fetchone()[0]
    if left:
        return False
    differences = [scale.low + code * scale.step - known for code, known in conn.execute(
        "SELECT code, known FROM web_training WHERE study = ? AND task = ?", (study.name, task))]
    return bool(differences) and not study_rule(study, scale).passes(differences)


@dataclass(frozen=True)
class Practice:
    """A practice slot as the page shows it: where it stands, the answer and the reference."""

    index: int
    count: int
    given: float | None
    known: float | None  #: shown only once answered
    rule: str


def practice_view(project: Any, study: Any, task: str, slot: int) -> Practice | None:
    """The practice slot `slot` of the task (None: the slot is a real pair)."""
    read = project.team_tables.read
    slots = [n for (n,) in read("SELECT slot FROM web_slots WHERE study = ? AND task = ? AND "
                                "is_check = ? ORDER BY slot", (study.name, task, TRAINING))]
    if slot not in slots:
        return None
    rows = read("SELECT code, known FROM web_training WHERE study = ? AND task = ? AND slot = ?",
                (study.name, task, slot)) if any(read(
                    "SELECT 1 FROM sqlite_master WHERE name = 'web_training'")) else []
    scale = project.scale
    given = scale.from_code(int(rows[0][0])) if rows else None
    return Practice(slots.index(slot) + 1, len(slots), given,
                    float(rows[0][1]) if rows else None, study_rule(study, scale).describe())


def feedback(practice: Practice) -> str:
    """The line shown after a practice answer: the reference and the worker's difference."""
    assert practice.given is not None and practice.known is not None
    difference = round(practice.given - practice.known, 6)
    if abs(difference) < 1e-9:
        how = "exactly the reference"
    else:
        gap = fmt(abs(difference))
        points = "point" if gap == "1" else "points"
        how = f"{gap} {points} {'above' if difference > 0 else 'below'} the reference"
    return (f"The reference score is {fmt(practice.known)}. You gave {fmt(practice.given)}: "
            f"{how}.")
