"""Raters an organizer's replica is about to add, reserved on the hub first (issue 31).

An import into an organizer's replica (people's ratings, crowd results, a machine rater)
adds raters the hub learns of only at the next sync; a web worker of the same name could
start a task meanwhile. So, when the hub can be reached, the new names are claimed there
first (`simrate.claim_rater`, hub/schema/raters.py): a name the hub holds as another kind
is refused with one line naming that kind, before anything is written here. Offline the
import goes on, and the sync claims them (refused then, with the same line). Publishing
again checks every rater of the file the same way (`refuse_kind_clashes`), so its upload
never puts a machine rater's scores under a crowd worker the replica had not pulled.
"""

from __future__ import annotations

from collections.abc import Iterable

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import nfc, rater_key, rater_name_problem
from simrate.core.edits.roster import kind_clash
from simrate.core.project import Project
from simrate.hub.link.connection import HubError, connect, sqlstate


def claim_new_raters(project: Project, names: Iterable[str], kind: str,
                     password: str | None = None) -> None:
    """Claim on the hub the raters of `names` (of `kind`) this organizer's replica does not
    hold yet; SimrateError when the hub holds one as another kind. Nothing to do for a
    plain file, an annotator's replica, or a hub that cannot be reached now."""
    import psycopg

    if not project.mode.organizer:
        return
    new = [n for n in dict.fromkeys(nfc(str(n).strip()) for n in names)
           if not rater_name_problem(n) and n not in project.roster]  # others: refused here
    if not new:
        return
    try:
        conn = connect(project.mode.url, password)
    except HubError:
        return  # offline: `team sync` claims them
    try:
        with conn.transaction():
            for name in new:
                conn.execute("SELECT simrate.claim_rater(%s, %s, %s)",
                             (name, rater_key(name), kind))
    except psycopg.Error as exc:
        if sqlstate(exc) == "SR403":
            raise SimrateError(f"{exc.diag.message_primary} (on the hub)",
                               project.path) from None
    finally:
        conn.close()


CLASHES = """
SELECT a.name, a.kind, u.kind
FROM unnest(%s::text[], %s::text[], %s::text[]) AS u(name, kind, key)
JOIN simrate.annotators a ON a.key = simrate.rater_key(u.name, u.key)
WHERE a.kind IS DISTINCT FROM u.kind LIMIT 1
"""


def refuse_kind_clashes(conn, raters: list[tuple[str, str]]) -> None:
    """SimrateError (one line, naming the hub's rater and kind) when one of `raters`
    ((name, kind) of a replica) is on the hub under another kind (of any spelling of the
    name: its key)."""
    if not raters:
        return
    row = conn.execute(CLASHES, ([n for n, _k in raters], [k for _n, k in raters],
                                 [rater_key(n) for n, _k in raters])).fetchone()
    if row is not None:
        raise SimrateError(f"{kind_clash(row[0], row[1], row[2])} (on the hub); nothing "
                           "was published")
