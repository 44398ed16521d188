"""The change log of a project file: every kind of entry, and the one function that writes one."""

from __future__ import annotations

import json
import sqlite3
import time

#: Every kind of change-log entry, with what it records (the documentation's reference page
#: is built from this table, and a test checks that every kind the code logs is in it).
CHANGE_KINDS: dict[str, str] = {
    "rating": "one rating set, changed or cleared: old and new score (with the note when "
              "either has one)",
    "skip": "an item marked as one this annotator cannot judge, with the reason as the note",
    "adjudication": "an organizer's verdict on an item set, changed or withdrawn",
    "threshold": "the spread at which an item is flagged changed",
    "flag_rule": "the flag rule (auto, range, uncertain) or its threshold changed: the old "
                 "and the new rule with both thresholds",
    "import_items": "a bulk import of items: the source file and the counts",
    "import_ratings": "a bulk import of ratings: the source file and the counts; its id tags "
                      "the ratings it wrote, so that it can be undone",
    "undo_import": "a bulk import undone: which one, and what was restored",
    "annotator": "an annotator added",
    "machine": "a machine rater added",
    "exclude": "an annotator excluded from agreement and gold, or taken back",
    "exclude_rule": "every worker a check-item rule flagged excluded in one step, or taken back",
    "check": "an item marked as a check item with its known score, or unmarked",
    "assign": "the items split among annotators: the settings of the split",
    "package": "a package written for one annotator",
    "merge_package": "a returned package merged: the annotator and the counts",
    "crowd_batch": "a crowd batch written: its name, tasks and slots",
    "conflict": "a rating, verdict or exclusion of this machine that met another value on "
                "the hub (a later edit made on another machine, which won, or an older "
                "one this machine's later edit replaced or kept): both values, both edit "
                "times, and which one won",
    "web_study": "a web study created, changed or closed: its settings",
    "web_lease": "a task of a web study leased to a worker: the task and its items",
    "web_invite": "a personal link made for a team member to rate in the browser",
    "web_invite_revoked": "the personal links of a team member revoked",
    "organizer_mode": "organizer mode (not blind) switched on or off, or a file opened in it, "
                      "under the name given in \"Who is rating?\"",
}


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid an INSERT just gave its row (sqlite3 leaves it None after other statements)."""
    if cursor.lastrowid is None:
        raise RuntimeError("no row was inserted")
    return cursor.lastrowid


def dumps(value: object) -> str | None:
    """JSON for the meta column and the change log (None stays NULL)."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def log_change(conn: sqlite3.Connection, kind: str, who: str = "", item_id: str | None = None,
               annotator: str | None = None, old: object = None, new: object = None,
               note_old: str | None = None, note_new: str | None = None) -> int:
    """Append one row to the change log (inside the caller's transaction); returns its id.

    `who` defaults to the annotator. When either note is given, old and new are logged as
    {score, note} so that a changed note is on record as well as a changed score.
    """
    if note_old or note_new:
        old = {"score": old, "note": note_old or ""}
        new = {"score": new, "note": note_new or ""}
    return inserted_id(conn.execute(
        "INSERT INTO changes (at, who, kind, item_id, annotator, old, new) "
        "VALUES (?,?,?,?,?,?,?)",
        (time.time(), who or annotator or "", kind, item_id, annotator, dumps(old), dumps(new)),
    ))
