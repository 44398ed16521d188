"""The hub's errors in our own words (issue 42).

A statement the hub refused comes back with PostgreSQL's own text: `function
simrate.sync_round(unknown, ...) does not exist`, `null value in column "updated_at" of
relation "ratings" violates not-null constraint`, names of tables, columns and
constraints. Clients never see those: every error maps, by its SQLSTATE, to one line of
ours and a kind of HubError (connection.HUB_STATES); the server's words go to the log of
the process that met them (`simrate serve`'s, or the client's logger at debug level).

The hub's own functions raise errors in our words already: SQLSTATEs of our own class
`SR` (SR401 a revoked link, SR403 another login's replica, SR400 a value off the scale),
plain `RAISE EXCEPTION` (P0001) and the shared study rules (rules.STUDY_REFUSED); their
first line is passed on.
"""

from __future__ import annotations

from simrate.core.base.rules import STUDY_REFUSED

#: Longest line of the hub's own words passed on.
LONGEST = 300

#: SQLSTATE (a code, or its two-character class) -> (HubError kind, our line).
OWN_LINES: dict[str, tuple[str, str]] = {
    "42883": ("newer", "the hub has no function this simrate calls: its schema is older or "
                       "newer than this simrate's; the organizer publishes it again (simrate "
                       "team publish) to bring it up to date"),
    "42": ("error", "the hub's schema does not match this simrate's; the organizer publishes "
                    "it again (simrate team publish) to bring it up to date"),
    "42501": ("refused", "this login may not do that on the hub"),
    "23502": ("error", "the hub refused a change that lacks a value it needs (an edit time, "
                       "a key, a name)"),
    "23503": ("error", "the hub refused a change of an item or rater it does not hold"),
    "23505": ("error", "the hub refused a change that would make a second copy of a value "
                       "it holds"),
    "23514": ("error", "the hub refused a value its rules do not allow"),
    "23": ("error", "the hub refused a change its rules do not allow"),
    "22": ("error", "the hub refused a malformed value (a score, an edit time or a key of "
                    "the wrong type or out of range)"),
    "40": ("full", "the hub was busy with other writes and gave up on this one; try again"),
    "53": ("full", "the hub is out of connections or resources; try again in a moment"),
    "54": ("error", "the hub refused a change too large for it"),
    "57014": ("full", "the hub took too long to answer; try again in a moment"),
    "57": ("unreachable", "the hub is shutting down or restarting"),
    "08": ("unreachable", "the connection to the hub was lost"),
    "25": ("error", "the hub refused the round: a transaction of it was already over"),
    "28": ("refused", "this login may not connect to the hub"),
}
FALLBACK = ("error", "the hub could not carry out the round (its log says why)")


def sqlstate_of(exc: BaseException) -> str:
    return str(getattr(exc, "sqlstate", None) or "")


def server_text(exc: BaseException) -> str:
    """The server's own first line (for the log only)."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    lines = [line.strip() for line in str(primary or exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def ours(exc: BaseException) -> bool:
    """True when the hub's text is ours: raised by our own functions."""
    state = sqlstate_of(exc)
    return state.startswith("SR") or state == "P0001" or \
        server_text(exc).startswith(STUDY_REFUSED)


def own_words(exc: BaseException) -> tuple[str, str]:
    """(HubError kind, one line of ours) for an error of a statement the hub ran."""
    state = sqlstate_of(exc)
    if ours(exc):
        kind = {"SR401": "removed", "SR403": "refused"}.get(state, "error")
        return kind, server_text(exc)[:LONGEST]
    return OWN_LINES.get(state) or OWN_LINES.get(state[:2]) or FALLBACK


def refused_statement(exc: BaseException, where: str = "") -> tuple[str, str]:
    """(HubError kind, its one line) for a statement the hub refused: our own words
    (OWN_LINES); the server's words go to the log."""
    import logging

    kind, line = own_words(exc)
    logging.getLogger("simrate.hub").debug("the hub refused a statement (SQLSTATE %s): %s",
                                           getattr(exc, "sqlstate", ""), server_text(exc))
    if kind == "refused":
        return kind, f"role not allowed on the hub {where}: {line}"
    return kind, f"the hub refused: {line}"


#: The file a removed person's message names when the caller does not say which.
THIS_FILE = "THIS.simrate"


def removed_advice(path: str = THIS_FILE, name: str = "YOUR_NAME", role: str = "annotator",
                   pending: int | None = None) -> str:
    """The way back of a person removed from the hub, ending every "removed" message: the
    organizer adds her again, and her replica takes the new link (hub/team/rejoin.py)."""
    import shlex

    held = "" if pending is None else f" ({pending} pending here)"
    return (f"; nothing is lost{held}: ask the organizer to add you again (simrate team add "
            f"THEIR.simrate {shlex.quote(name)} --role {role}), then take the new link into "
            f"this file with: simrate team join NEW_LINK {shlex.quote(str(path))}")
