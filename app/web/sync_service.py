"""The sync service of `simrate serve` (issue 33): annotators' sync rounds over HTTP.

On an organizer's hub replica the server already holds a small pool of warm connections
as the hub's web login (hub_backend.py), which may call the hub's functions and read or
write no table. `POST /sync/round` (JSON, the person's token as `Authorization: Bearer`)
is one call of `simrate.sync_round` on one of them (hub/schema/service.py): the hub finds
the person from the token, so nothing in the body can name another. The call is one
transaction whose commit waits for the disk: the answer comes after the round is on disk.

Rounds that reach the server together share that call and its commit (CallGroups): a
round waits at most GATHER for others, and the group goes as one call of
`simrate.sync_rounds`, each round in a subtransaction of its own, so one refused round
is undone alone. A group costs the hub one wake-up, one transaction and one commit in
place of one each per round (measured, one call at a time: 0.46 ms of PostgreSQL CPU a
round alone, 0.36 in groups of four). A hub published before groups existed gets one
call per round, as before.

Errors answer JSON `{"error": one line, "kind": ...}` with the kinds of a direct round
(hub/link/client.py reads them): 401 removed (a revoked, forged or removed person's
token), 403 refused, 503 full (no pooled connection free in time, or the hub's limits),
502 unreachable (the hub does not answer the server).
"""

from __future__ import annotations

import json
import logging
import re

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from simrate.web.bodies import SYNC_MAX_BODY, BadBody, BodyTooLarge, load_json, read_body

LOG = logging.getLogger("simrate.web")

ROUND_CALL = "SELECT simrate.sync_round(%s, %s, %s, %s::jsonb, %s::jsonb)"
GROUP_CALL = "SELECT simrate.sync_rounds(%s::jsonb)"
#: Longest a round waits for others to share its call (seconds); most rounds in one call;
#: a round whose ratings take more than BIG bytes of JSON (about 200 ratings) goes at once,
#: with those already waiting.
GATHER, MOST, BIG = 0.06, 16, 32_000
BEARER = re.compile(r"^Bearer ([A-Za-z0-9_-]{16,200})$")
UUID = re.compile(r"^[0-9a-fA-F-]{32,36}$")
TABLES = ("settings", "items", "ratings")


class BadRound(Exception):
    """A request that is no sync round (answered 400)."""


def refusal(text: str, kind: str, status: int) -> JSONResponse:
    return JSONResponse({"error": text, "kind": kind}, status_code=status,
                        headers={"Cache-Control": "no-store"})


def round_token(token_header: str) -> str:
    """The sync token of the Authorization header; BadRound, before any body is read, if
    there is none."""
    found = BEARER.match(token_header or "")
    if not found:
        raise BadRound("no sync token: send the one of your link as 'Authorization: Bearer'")
    return found.group(1)


def parse_round(token_header: str, body: bytes) -> tuple:
    """(token, replica, upto, ratings JSON, marks JSON) of a request; BadRound if none."""
    token = round_token(token_header)
    try:
        data = load_json(body)  # bounded nesting: never a RecursionError
    except BadBody as exc:
        raise BadRound(str(exc)) from None
    if not isinstance(data, dict):
        raise BadRound("the body is not a JSON object")
    replica, upto = data.get("replica"), data.get("upto", 0)
    ratings, marks = data.get("ratings", []), data.get("marks", {})
    if not isinstance(replica, str) or not UUID.match(replica):
        raise BadRound("replica: not a replica id")
    if not isinstance(upto, int) or isinstance(upto, bool) or upto < 0:
        raise BadRound("upto: not a change id")
    if not isinstance(ratings, list) or not all(isinstance(r, dict) for r in ratings):
        raise BadRound("ratings: not a list of ratings")
    if not isinstance(marks, dict) or not all(
            t in TABLES and isinstance(m, int) and not isinstance(m, bool)
            for t, m in marks.items()):
        raise BadRound("marks: not the watermarks of settings, items and ratings")
    return (token, replica, upto, json.dumps(ratings), json.dumps(marks))


#: Rounds one sync link may start (per server process): `ROUND_BURST` at once (a person's
#: few machines, a join's pages), `ROUNDS_PER_SECOND` after; a window makes one round
#: after a rating and one every 30 s otherwise.
ROUNDS_PER_SECOND, ROUND_BURST = 5.0, 20.0


class SyncService:
    """The `/sync/round` endpoint over a HubBackend's pool."""

    def __init__(self, backend):
        from simrate.web.security import Buckets

        self.backend = backend
        self.rounds = Buckets(ROUNDS_PER_SECOND, ROUND_BURST)
        self.groups = None  # CallGroups, made at the first round for a hub that groups

    async def round(self, request: Request) -> Response:
        if getattr(self.backend, "pool", None) is None:
            return refusal("this server serves no hub: run `simrate serve` on the "
                           "organizer's hub replica", "error", 404)
        header = request.headers.get("authorization", "")
        try:  # the token first: a body without one is never read
            round_token(header)
            params = parse_round(header, await read_body(request, SYNC_MAX_BODY))
        except BadRound as exc:
            return refusal(str(exc), "error", 400)
        except BodyTooLarge as exc:
            LOG.warning("refused a sync round over %s bytes", f"{exc.limit:,}")
            answer = refusal(str(exc), "error", 413)
            answer.headers["connection"] = "close"
            return answer
        if not self.rounds.allow(params[0]):
            return refusal("too many sync rounds from this link at once; the next one "
                           "waits", "full", 429)
        if not getattr(self.backend, "grouped_rounds", False):  # a hub without sync_rounds
            return _answer((await self._calls([params], [0.0]))[0])
        from simrate.web.hub_pool import CallGroups

        if self.groups is None:
            self.groups = CallGroups(self._calls, GATHER, MOST)
        return _answer(await self.groups.outcome(params, len(params[3]) > BIG))

    async def _calls(self, rounds: list[tuple], waited: list[float]) -> list:
        """The outcomes of rounds sent as one call (one round: sync_round; more, or a hub
        that groups: sync_rounds): each an answer (dict), a CallFailed, or the refusal
        that every round of the call gets (a Response).

        The client dates its edits in the hub's time: it takes the hub's clock in the
        answer for the middle of its request's round trip (hub/link/client.py). A round
        that waited here for its group read that clock `waited` seconds late, which moves
        the middle by half as much: the answer's clock is set back by that half, so the
        wait leaves the client's estimate as it was without groups."""
        import psycopg
        from psycopg_pool import PoolTimeout

        from simrate.web.hub_pool import closed_when_stale, dropped, may_go_again

        grouped = getattr(self.backend, "grouped_rounds", False)
        for attempt in range(3):
            try:
                async with self.backend.pool.connection() as conn:
                    async with closed_when_stale(conn):
                        outcomes = (await _rounds(conn, rounds) if grouped
                                    else [await _round(conn, rounds[0])])
                break
            except psycopg.Error as exc:
                if may_go_again(exc) and attempt < 2:
                    continue
                if isinstance(exc, psycopg.OperationalError) and dropped(exc.sqlstate or ""):
                    return [await self._why()] * len(rounds)  # full, or unreachable?
                return [_hub_refusal(exc)] * len(rounds)
            except PoolTimeout:
                return [await self._why()] * len(rounds)
        for answer, wait in zip(outcomes, waited, strict=True):
            if isinstance(answer, dict) and isinstance(answer.get("clock"), (int, float)):
                answer["clock"] -= wait / 2
            if isinstance(answer, dict) and answer.get("pushed") and \
                    hasattr(self.backend, "wrote"):
                self.backend.wrote(answer.get("name"))  # announced after the commit
        return outcomes

    async def _why(self) -> JSONResponse:
        """The answer when no pooled connection served: one connection tried now says
        whether the hub is full (its limits) or does not answer; if it connects, the pool
        is busy."""
        import psycopg

        from simrate.hub.link.connection import CONNECT_TIMEOUT, classify, first_line

        try:
            conn = await psycopg.AsyncConnection.connect(
                self.backend.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
        except psycopg.Error as exc:
            LOG.warning("the sync service could not connect to the hub: %s", first_line(exc))
            if classify(exc) == "full":
                return refusal("the sync service's login has no connection left on the hub",
                               "full", 503)
            return refusal("the hub does not answer the sync service", "unreachable", 502)
        await conn.close()
        return refusal("the sync service has no hub connection free in time (its pool is "
                       "busy)", "full", 503)


#: HubError kind -> the HTTP status the service answers with (client.STATUS_KINDS).
KIND_STATUS = {"removed": 401, "refused": 403, "full": 503, "unreachable": 502,
               "newer": 409}


def _hub_refusal(exc) -> JSONResponse:
    """The answer for an error of the hub's function or of the hub itself: one line of our
    own (hub/link/hub_errors.py); the hub's words go to this server's log only."""
    from simrate.hub.link.hub_errors import ours, own_words, server_text

    kind, line = own_words(exc)
    if not ours(exc):
        LOG.warning("sync round refused by the hub (SQLSTATE %s): %s",
                    getattr(exc, "sqlstate", "") or "-", server_text(exc))
    return refusal(line, kind, KIND_STATUS.get(kind, 400))


async def _round(conn, params: tuple) -> dict:
    """The round's answer: one statement, one transaction, whose commit waits for the
    disk (the hub's default), so the answer leaves only once the round is on disk. No
    hub-wide lock is held over that wait (hub schema 4): the commit only holds back the
    other replicas' pulls (pull_cap) for as long as it takes."""
    answer = await _one_value(conn, ROUND_CALL, params)
    return answer if isinstance(answer, dict) else json.loads(answer)


async def _rounds(conn, rounds: list[tuple]) -> list:
    """The outcomes of a group of rounds (sync_rounds): one statement, one transaction,
    one commit for all; a round the hub refused is a CallFailed."""
    from simrate.web.hub_pool import group_outcomes

    group = "[" + ",".join(f"[{json.dumps(token)},{json.dumps(replica)},{int(upto)},"
                           f"{ratings},{marks}]"
                           for token, replica, upto, ratings, marks in rounds) + "]"
    outcomes = group_outcomes(await _one_value(conn, GROUP_CALL, (group,)), len(rounds))
    if outcomes is None:
        raise RuntimeError("the hub's group of rounds answered another number of rounds")
    return outcomes


async def _one_value(conn, call: str, params: tuple):
    """The one value of a call's one row. On a connection that reaches PostgreSQL itself
    the call is a statement prepared once (hub_pool.py); through a pooler, one plain
    query."""
    if conn.prepare_threshold is not None:
        cursor = await conn.execute(call, params)
    else:
        cursor = psycopg_client_cursor(conn)
        await cursor.execute(cursor.mogrify(call, params))
    row = await cursor.fetchone()
    if row is None:  # the hub's round functions answer one row, whatever they did
        raise RuntimeError("the hub's round answered no row")
    return row[0]


def _answer(outcome) -> Response:
    """The HTTP answer to one round from its outcome (SyncService._calls)."""
    from simrate.web.hub_pool import CallFailed

    if isinstance(outcome, dict):
        return JSONResponse(outcome, headers={"Cache-Control": "no-store"})
    if isinstance(outcome, CallFailed):
        return _hub_refusal(outcome)
    if isinstance(outcome, Response):  # shared by a group's rounds: a copy for each
        return Response(outcome.body, outcome.status_code, headers=dict(outcome.headers))
    raise RuntimeError("the group's call to the hub failed") from (
        outcome if isinstance(outcome, BaseException) else None)


def psycopg_client_cursor(conn):
    """A cursor that sends the call as one plain query (no prepared statement, which a
    pooler in transaction mode would not keep)."""
    import psycopg

    return psycopg.AsyncClientCursor(conn)
