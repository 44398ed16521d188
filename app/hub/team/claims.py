"""Raters an organizer's replica is about to add, reserved on the hub first (issue 31).

An import into an organizer's replica (people's ratings, crowd results, a machine rater)
adds raters the hub learns of only at the next sync; a web worker of the same name could
start a task meanwhile. So, when the hub can be reached, the new names are claimed there
first (`simrate.claim_rater`, hub/schema/raters.py): a name the hub holds as another kind
is refused with one line naming that kind, before anything is written here. Offline the
import goes on, and the sync claims them (refused then, with the same line).
"""

from __future__ import annotations

from collections.abc import Iterable

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import nfc, rater_key, rater_name_problem
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
