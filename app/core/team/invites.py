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

from simrate.core.base.names import nfc, rater_key
from simrate.core.data.changelog import log_change
from simrate.core.project import Project
from simrate.core.team.teamdb import has_table
from simrate.core.team.web_tables import PageOutdated, score_code

#: Why a rating from a personal link's page is refused when its item is not the one now.
NOT_NOW = "this item is not the one to rate now; reload the page"

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
    """A new link token for annotator `name` (added as a person when new); logged. The
    link names the person of the name's key (`ZOË`, an NFD `Zoë` are `Zoë`); a name held
    by a crowd worker or machine rater is refused with one line naming that kind."""
    name = project.roster.add(name)  # SimrateError for a name no person may have
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
    key = rater_key(nfc(name.strip()))  # the links of `Zoë` typed in any form or case
    held = [n for (n,) in project.team_tables.read(
        "SELECT DISTINCT annotator FROM web_invites WHERE revoked_at IS NULL")
        if rater_key(n) == key]
    if not held:
        return 0
    name = project.roster.name_of(held[0])
    marks = ",".join("?" * len(held))
    with project.team_tables.transaction() as conn:
        now = time.time()
        live = conn.execute(f"UPDATE web_invites SET revoked_at = ? WHERE annotator IN "
                            f"({marks}) AND revoked_at IS NULL", (now, *held)).rowcount
        if live:
            log_change(conn, "web_invite_revoked", by, annotator=name, new={"links": live})
    return int(live)


def invitee(project: Project, token: str) -> str | None:
    """The annotator a live link token names, or None."""
    if not token or len(token) > 100 or not has_table(project, "web_invites"):
        return None
    rows = project.team_tables.read(
        "SELECT annotator FROM web_invites WHERE token_hash = ? AND revoked_at IS NULL",
        (_hash(token),))
    if not rows:
        return None
    # the person of the link's name: its key finds her when the link was made with an NFD
    # name, and another process may have added her since this one read its roster
    name = nfc(rows[0][0])
    found = project.team_tables.read(
        "SELECT name FROM annotators WHERE (name = ? OR key = ?) AND kind = 'human' "
        "ORDER BY name = ? DESC LIMIT 1", (name, rater_key(name), name))
    return found[0][0] if found else None


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
    the annotator. PageOutdated for a revoked link, an item not theirs or a rated one,
    ScoreRefused for a score off the scale."""
    name = invitee(project, token)
    if name is None:
        raise PageOutdated("this link is not valid (revoked?)")
    entry = next_item(project, name)
    if entry is None or entry[0] != item_id:
        # only the item the page showed: never an item outside the assignment, never twice
        raise PageOutdated(NOT_NOW)
    code = score_code(project.scale, score)
    project.rate(item_id, name, project.scale.from_code(code))
    return name
