"""Mechanical Turk mode (off by default): with `crowd study --allow-frame-from ORIGIN` the
study's pages may be shown in a frame of that origin (CSP `frame-ancestors`), as an
ExternalQuestion HIT shows them, and the `assignmentId`/`turkSubmitTo` round trip is made:
the HIT's link carries `workerId`, `assignmentId` and `turkSubmitTo`; the assignment is kept
as the task's session (`mturk:ID` or `mturk-sandbox:ID`), and the last page posts the
assignment and the completion code back to Mechanical Turk (`/mturk/externalSubmit`).
A preview (`ASSIGNMENT_ID_NOT_AVAILABLE`) shows the landing page without Start.

In a frame of another site the task cookie must be SameSite=None (and so Secure): run the
page behind TLS in this mode. Every write still carries the task's token and is checked
for its Origin, so the looser cookie opens no cross-site write."""

from __future__ import annotations

import re

from simrate.web.security import CSP

SUBMIT = {"https://www.mturk.com": "mturk", "https://workersandbox.mturk.com": "mturk-sandbox"}
ORIGINS = {kind: origin for origin, kind in SUBMIT.items()}
PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
ASSIGNMENT = re.compile(r"[A-Za-z0-9]{1,64}")


def from_link(query, frame_from: str) -> tuple[str, str, bool]:
    """(worker id, session, preview) from a HIT's link; ('', '', False) when the study is
    not in this mode or the link is no HIT's."""
    assignment = query.get("assignmentId", "")
    if not frame_from or not assignment:
        return "", "", False
    if assignment == PREVIEW:
        return "", "", True
    kind = SUBMIT.get(query.get("turkSubmitTo", "").rstrip("/"))
    if kind is None or not ASSIGNMENT.fullmatch(assignment):
        return "", "", False
    return query.get("workerId", ""), f"{kind}:{assignment}", False


def submit_to(session: str) -> tuple[str, str] | None:
    """(the externalSubmit URL, the assignment id) for a task of a HIT, else None."""
    kind, _, assignment = session.partition(":")
    if kind not in ORIGINS or not ASSIGNMENT.fullmatch(assignment):
        return None
    return f"{ORIGINS[kind]}/mturk/externalSubmit", assignment


def headers_for(frame_from: str) -> dict[str, str]:
    """The CSP of a page of a study in this mode: framed by its origin, and its last page's
    form may post to Mechanical Turk."""
    if not frame_from:
        return {}
    policy = CSP.replace("frame-ancestors 'none'", f"frame-ancestors {frame_from}").replace(
        "form-action 'self'", "form-action 'self' " + " ".join(SUBMIT))
    return {"content-security-policy": policy}
