"""Personal links for remote raters: a team member rates their assignment in the browser.

`simrate team invite PROJECT NAME` makes a random token for annotator NAME (a person of the
project, never a machine rater or a crowd worker) and keeps only its SHA-256 in the file
(table `web_invites`), so the file alone cannot rebuild a link. Through the link the
person sees their assigned items that they have not rated yet (all items when the project
has no assignment for them), one at a time, with no one else's ratings: blind, as
themselves. `team remove NAME` revokes their links.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from simrate.core.data.changelog import log_change
from simrate.core.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.teamdb import has_table

INVITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_invites (
    token_hash TEXT PRIMARY KEY,
    annotator TEXT NOT NULL,
    created_at REAL NOT NULL,
    revoked_at REAL
);
"""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def invite(project: Project, name: str, by: str = "") -> str:
    """A new link token for annotator `name` (added as a person when new); logged."""
    name = name.strip()
    kinds = dict(project.team_tables.read("SELECT name, kind FROM annotators"))
    if name in kinds and kinds[name] != "human":
        raise SimrateError(f"{name!r} is a {kinds[name]} rater, not a person of the team; "
                           "only people get a link", project.path)
    if name not in kinds:
        project.roster.add(name)  # SimrateError for a name that cannot be an annotator
    token = secrets.token_urlsafe(32)
    with project.team_tables.transaction() as conn:
        conn.execute(INVITE_SCHEMA)
        conn.execute("INSERT INTO web_invites VALUES (?, ?, ?, NULL)",
                     (_hash(token), name, time.time()))
        log_change(conn, "web_invite", by, annotator=name, new={"annotator": name})
    return token


def revoke(project: Project, name: str, by: str = "") -> int:
    """Revoke every live link of annotator `name`; returns how many."""
    if not has_table(project, "web_invites"):
        return 0
    live = project.team_tables.read("SELECT COUNT(*) FROM web_invites WHERE annotator = ? AND "
                                    "revoked_at IS NULL", (name,))[0][0]
    if not live:
        return 0
    with project.team_tables.transaction() as conn:
        conn.execute("UPDATE web_invites SET revoked_at = ? WHERE annotator = ? AND "
                     "revoked_at IS NULL", (time.time(), name))
        log_change(conn, "web_invite_revoked", by, annotator=name, new={"links": live})
    return int(live)


def invitee(project: Project, token: str) -> str | None:
    """The annotator a live link token names, or None."""
    if not token or len(token) > 100 or not has_table(project, "web_invites"):
        return None
    rows = project.team_tables.read(
        "SELECT i.annotator FROM web_invites i JOIN annotators a ON a.name = i.annotator "
        "WHERE i.token_hash = ? AND i.revoked_at IS NULL AND a.kind = 'human'", (_hash(token),))
    return rows[0][0] if rows else None


def next_item(project: Project, name: str) -> tuple[str, str, str, int, int] | None:
    """(item id, left, right, rated so far, total) of the person's first unrated item of
    their assignment (of every item when they have none), or None when all are rated."""
    aid = project.roster.id_of(name)
    assigned = has_table(project, "assignment") and project.team_tables.read(
        "SELECT 1 FROM assignment WHERE annotator = ? LIMIT 1", (name,))
    pool = ("SELECT item_ord FROM assignment WHERE annotator = :name" if assigned
            else "SELECT ord FROM items")
    total = project.team_tables.read(f"SELECT COUNT(*) FROM ({pool})", {"name": name})[0][0]
    done = project.team_tables.read(
        f"SELECT COUNT(*) FROM ratings WHERE annotator_id = :aid AND item_ord IN ({pool}) "
        "AND (code IS NOT NULL OR skipped = 1)", {"aid": aid, "name": name})[0][0]
    rows = project.team_tables.read(
        f"SELECT i.id, i.left, i.right FROM items i WHERE i.ord IN ({pool}) AND i.ord NOT IN "
        "(SELECT item_ord FROM ratings WHERE annotator_id = :aid AND (code IS NOT NULL OR "
        "skipped = 1)) ORDER BY i.ord LIMIT 1", {"aid": aid if aid is not None else -1,
                                                 "name": name})
    if not rows:
        return None
    return (*rows[0], int(done), int(total))


def rate_invited(project: Project, token: str, item_id: str, score: str) -> str:
    """Save the person's score for an item of theirs (the project's own rate path); returns
    the annotator. SimrateError for a revoked link, an item not theirs or a rated one."""
    name = invitee(project, token)
    if name is None:
        raise SimrateError("this link is not valid (revoked?)")
    entry = next_item(project, name)
    if entry is None or entry[0] != item_id:
        # only the item the page showed: never an item outside the assignment, never twice
        raise SimrateError("this item is not the one to rate now; reload the page")
    code = project.scale.parse(str(score)[:40])
    project.rate(item_id, name, project.scale.from_code(code))
    return name
