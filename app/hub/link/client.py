"""The replica's side of the sync service: rounds over HTTP to `simrate serve` (issue 33).

An annotator's replica joined through a sync link (`http(s)://HOST:PORT/team/TOKEN`, from
`simrate team token`) keeps the server's address as its hub URL and the token in its
mode (core/data/replica_mode.py), and sends each round as one POST of JSON to `/sync/round`; the server makes
it one call of the hub's `simrate.sync_round` (hub/schema/service.py), which finds the
person from the token. The round's answer has the shape of a direct exchange's
(exchange.Received), so collect and absorb (sync.py) are the same for both.

Failures are HubErrors of the same kinds as direct: no answer from the server, or the
server saying the hub does not answer, is "unreachable"; no pooled connection free in
time, "full"; a revoked token or a removed person, "removed".
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from typing import Any

from simrate.hub.link.connection import HubError
from simrate.hub.link.exchange import ANNOTATOR_TABLES, Outbox, Received
from simrate.hub.link.hub_errors import removed_advice

#: Seconds the client waits for the server's answer.
TIMEOUT = 30
#: Ratings sent per request (the server refuses bodies over its limit).
CHUNK = 1000
#: The tables an annotator's replica pulls (the columns and rows of each: sync_round).
TABLES = ANNOTATOR_TABLES
LINK = re.compile(r"^(https?://[^/?#\s]+(?:/[^?#\s]*?)?)/team/([A-Za-z0-9_-]{16,200})/?$")


def split_link(link: str) -> tuple[str, str]:
    """(the server's base address, the token) of a sync link; HubError if it is none."""
    found = LINK.match(link.strip())
    if not found:
        raise HubError("not a sync link: it looks like http://HOST:PORT/team/TOKEN (from "
                       "`simrate team add --service`, `team invite` or `team token`)",
                       "error")
    if "@" in found.group(1).split("://", 1)[1].split("/", 1)[0]:
        raise HubError("a sync link holds no user name or password: the token in it says "
                       "who you are; give the link as `team token` printed it", "error")
    return found.group(1), found.group(2)


def make_link(base: str, token: str) -> str:
    """The sync link of a token at a server's base address."""
    return f"{base.rstrip('/')}/team/{token}"


#: HTTP status of the server -> HubError kind.
STATUS_KINDS = {401: "removed", 403: "refused", 404: "error", 409: "project",
                413: "error", 429: "full", 502: "unreachable", 503: "full",
                504: "unreachable"}


def post_round(base: str, token: str, body: dict) -> dict:
    """One POST of a round; the server's JSON answer, or HubError saying which failure."""
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    request = urllib.request.Request(
        f"{base.rstrip('/')}/sync/round", data=data, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310
            return json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise _refusal(base, exc) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise HubError(f"hub unreachable ({base}): the sync service does not answer "
                       f"({reason})", "unreachable") from None


def _refusal(base: str, exc: urllib.error.HTTPError) -> HubError:
    """The HubError of a status the sync service answered with."""
    try:
        said = json.loads(exc.read().decode("utf-8"))
        text, kind = str(said.get("error", "")), str(said.get("kind", ""))
    except (ValueError, OSError, AttributeError):
        text, kind = "", ""
    kind = kind or STATUS_KINDS.get(exc.code, "error")
    text = text or f"HTTP {exc.code}"
    if kind == "removed":
        return HubError(f"removed from the hub ({base}): {text}{removed_advice()}",
                        "removed")
    if kind == "full":
        return HubError(f"hub full ({base}): {text}; try again in a moment", "full")
    if kind == "unreachable":
        return HubError(f"hub unreachable ({base}): {text}", "unreachable")
    return HubError(f"the sync service refused ({base}): {text}", kind)


def _rating_json(row: tuple) -> dict:
    """A pushed rating as the service takes it: never the annotator (the hub takes the
    person from the token); an undo carries the hub's value this machine last saw."""
    out = {"item_id": row[0], "code": row[2], "note": row[3], "skipped": bool(row[4]),
           "seconds": row[5], "updated_at": row[6]}
    if len(row) > 11 and row[8]:
        out["undo"] = True
        out["seen"] = [row[9], row[10], bool(row[11])]
    return out


def service_exchange(base: str, token: str, replica: str, outbox: Outbox,
                     marks: dict[str, int], project_uuid: str = "") -> Received:
    """Push the outbox and pull what is new through the service: the exchange of a
    direct round (exchange.py), in as many requests as the outbox and the pull need."""
    ratings = [_rating_json(r) for r in outbox.ratings]
    chunks = [ratings[i:i + CHUNK] for i in range(0, len(ratings), CHUNK)] or [[]]
    rows: dict[str, list[tuple]] = {t: [] for t in TABLES}
    new_marks = {t: marks.get(t, 0) for t in TABLES}
    refused: list[tuple] = []
    acked, pushed, offset = None, 0, 0.0
    while True:
        chunk = chunks.pop(0) if chunks else []
        body = {"replica": replica, "upto": outbox.upto if not chunks else 0,
                "ratings": chunk, "marks": new_marks}
        sent = time.time()
        answer = post_round(base, token, body)
        offset = (sent + time.time()) / 2 - float(answer["clock"])
        check_project(answer, project_uuid)
        acked = int(answer["acked"]) if acked is None else acked
        pushed += int(answer["pushed"])
        refused.extend(tuple(r) for r in answer["refused"])
        full = _take_pages(answer, rows, new_marks)
        if not chunks and not full:
            break
    return Received(acked or 0, pushed, rows, new_marks, refused, offset)


def _take_pages(answer: dict, rows: dict[str, list[tuple]], marks: dict[str, int]) -> bool:
    """Add the answer's pulled rows; True when a table's page was full (more to pull)."""
    from simrate.hub.schema.service import SYNC_PAGE

    full = False
    for table in TABLES:
        found = [tuple(r) for r in answer.get(table, [])]
        rows[table].extend(found)
        if found:
            marks[table] = int(found[-1][-1])
        full = full or len(found) >= SYNC_PAGE
    return full


def check_project(answer: dict, project_uuid: str) -> None:
    from simrate.hub.link.connection import check_version

    check_version(int(answer.get("hub_schema") or 0))
    if project_uuid and answer.get("project_uuid") != project_uuid:
        raise HubError("the hub holds another project than this file (project ids differ)",
                       "project")


class ServiceSession:
    """HubSession's interface over the sync service: no connection is held between rounds
    (the server keeps the warm ones), and there is nothing to listen to, so `wait` sleeps
    and the window polls."""

    def __init__(self, base: str, token: str, replica: str, project_uuid: str):
        from simrate.hub.link.backoff import Backoff

        self.url, self.token, self.replica = base, token, replica
        self.project_uuid = project_uuid
        self.organizer = False
        self.connected = False
        self.linger = 0.0
        self.listen_backoff = Backoff()

    def round(self, outbox: Outbox, marks: dict[str, int]) -> Received:
        """Push and pull once; HubError when that fails."""
        try:
            received = service_exchange(self.url, self.token, self.replica, outbox, marks,
                                        self.project_uuid)
        except HubError:
            self.connected = False
            raise
        self.connected = True
        return received

    def wait(self, timeout: float) -> bool:
        time.sleep(timeout)
        return False

    def close_if_idle(self) -> bool:
        return False

    def drop(self) -> None:
        self.connected = False

    def close(self) -> None:
        self.drop()


def session_for_service(project: Any):
    """The ServiceSession of a replica that syncs through the service."""
    from simrate.hub.link.replica import read_link

    link = read_link(project)
    return ServiceSession(link.url, link.token, link.replica,
                          project.meta("project_uuid") or "")

