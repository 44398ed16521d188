"""The web pages' backend for an organizer's replica: every lease and rating is a call
of one of the hub's functions, over a pool of the hub's web login."""

from __future__ import annotations

import hmac
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.web_tables import read_options, refusal, score_code
from simrate.web.backend_protocol import Shown
from simrate.web.security import Refused

#: How long a server answers pages from a study's row it read from the hub (seconds). A
#: task start reads the study four times (the study's page, the start, the task, its
#: first pair); the row changes only when the organizer edits or closes the study, and
#: the hub's own functions refuse a lease or a rating in a closed study whatever a page
#: showed.
STUDY_SECONDS = 1.0
#: Ratings that reach the server together share one call and one commit on the hub
#: (`simrate.web_rate_shows`, each in a subtransaction of its own): the first waits at
#: most RATE_GATHER seconds for others, and a group holds RATE_MOST at most.
RATE_GATHER, RATE_MOST = 0.02, 8
#: The columns of web_rate_show's row, in order (hub/schema/web_rate.py).
RATE_SHOW_COLUMNS = ("task", "worker", "cookie", "token", "state", "size", "rated",
                     "expires_at", "session", "slot", "item_left", "item_right", "code",
                     "name", "per_task", "checks", "per_item", "lease_minutes",
                     "completion_url", "study_code", "secret", "open", "options")

if TYPE_CHECKING:  # imported when the server starts (`simrate serve` alone needs it)
    from psycopg_pool import AsyncConnectionPool

    from simrate.web.announcer import Announcer


class HubBackend:  # implements backend_protocol.WebBackend
    """An organizer's hub replica: every lease and rating is one call of a hub function
    (hub/schema/web.py), made as the hub's web login over psycopg's connection pool. The
    project file is read once, when the server opens (the hub's URL and web login, the
    scale, the title), and never written; nothing lives in the process but the pool, so
    any number of servers can run side by side behind a reverse proxy."""

    #: at most 4 hub connections a process: 500 windows syncing through two servers kept
    #: 9 backends busy with 8 and cost the hub 1.34-1.37 ms a rating, 1.29 ms with 4
    #: (docs/hub.md); the web login's SERVICE_CONNECTION_LIMIT (20) leaves room for 4 servers
    def __init__(self, path: str | Path, min_size: int = 2, max_size: int = 4):
        self.path = Path(path)
        self.min_size, self.max_size = min_size, max_size
        self.url = ""
        self._scale: Scale | None = None
        self._title = ""
        self._studies: list[str] = []
        self.pool: AsyncConnectionPool | None = None
        self.opened = False
        self.one_call = False  # the hub has web_rate_show (a rating and its next page)
        self.announces = False  # the hub leaves announcing serve's writes to serve
        self.grouped_rounds = False  # the hub has sync_rounds (a group of rounds, one call)
        self.rate_groups: Any = None  # CallGroups of ratings, when the hub takes them
        self.announcer: Announcer | None = None
        self._study_rows: dict[str, tuple[float, web.Study]] = {}  # name: (read at, study)

    @property
    def scale(self) -> Scale:
        if self._scale is None:
            raise RuntimeError("the backend is not open")
        return self._scale

    @property
    def title(self) -> str:
        return self._title

    def open(self) -> None:
        """Read the replica's settings and check that the hub answers to the web login
        (SimrateError, one line, before anything listens)."""
        import psycopg

        from simrate.hub.link.connection import connect, explain
        from simrate.hub.team.web_hub import web_url

        with Project.open(self.path) as project:
            self.url = web_url(project)
            self._scale, self._title = project.scale, project.title
            self._studies = [s.name for s in web.studies(project) if s.open]
        conn = connect(self.url)
        try:
            conn.execute("SELECT count(*) FROM simrate.web_study('')").fetchone()
            # what a hub published by an older simrate lacks (the query has one row)
            self.one_call, self.announces, self.grouped_rounds, rate_groups = conn.execute(
                "SELECT to_regprocedure('simrate.web_rate_show(text, text, text, integer, "
                "integer)') IS NOT NULL, to_regprocedure('simrate.announce_writes(text[])') "
                "IS NOT NULL, to_regprocedure('simrate.sync_rounds(jsonb)') IS NOT NULL, "
                "to_regprocedure('simrate.web_rate_shows(jsonb)') IS NOT NULL").fetchone()
            if rate_groups:
                from simrate.web.hub_pool import CallGroups

                self.rate_groups = CallGroups(self._rate_calls, RATE_GATHER, RATE_MOST)
        except psycopg.Error as exc:
            raise explain(exc, self.url) from None
        finally:
            conn.close()
        self.opened = True

    async def start(self) -> None:
        from simrate.hub.link.connection import CONNECT_TIMEOUT
        from simrate.web.hub_pool import RecentFirstPool, prepare_when_direct

        self.pool = pool = RecentFirstPool(
            self.url, min_size=self.min_size, max_size=self.max_size, open=False, timeout=10,
            configure=prepare_when_direct,
            kwargs={"autocommit": True, "prepare_threshold": None,
                    "connect_timeout": CONNECT_TIMEOUT, "application_name": "simrate serve"})
        await pool.open(wait=True, timeout=30)
        if self.announces:
            from simrate.web.announcer import Announcer

            self.announcer = Announcer(pool)
            self.announcer.start()

    async def stop(self) -> None:
        if self.announcer is not None:
            await self.announcer.stop()
            self.announcer = None
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    def close(self) -> None:
        self.opened = False

    def wrote(self, name: str | None = None) -> None:
        """A quiet call committed a write (announcer.py); `name`: the person rated."""
        if self.announcer is not None:
            self.announcer.note(name)

    def open_studies(self) -> list[str]:
        return list(self._studies)

    async def _rows(self, sql: str, params: tuple) -> list[tuple]:
        """The rows of one call; a refusal of the hub's functions (SQLSTATE SRnnn) becomes
        a WebRefusal with status nnn; a deadlock is tried again; anything else of the hub
        is SimrateError (the page says the server is busy, the log says why).

        A write is one statement, whose commit waits for the disk: the page answers
        only once it is stored."""
        import psycopg
        from psycopg_pool import PoolTimeout

        from simrate.web.hub_pool import closed_when_stale, may_go_again

        if self.pool is None:
            raise RuntimeError("the backend is not started")
        for attempt in range(3):
            try:
                async with self.pool.connection() as conn:
                    async with closed_when_stale(conn):
                        cursor = await conn.execute(sql, params)
                        return await cursor.fetchall()
            except psycopg.Error as exc:
                state = exc.sqlstate or ""
                if not (state.startswith("SR") and state[2:].isdigit()) and \
                        may_go_again(exc) and attempt < 2:
                    continue
                raise _refused(exc) from None
            except PoolTimeout:
                raise SimrateError("the hub: no connection free in time") from None
        raise SimrateError("the hub: deadlocked three times")

    @staticmethod
    def _lease(name: str, row: tuple) -> web.Lease:
        task, worker, cookie, token, state, size, rated, expires, session = row[:9]
        return web.Lease(name, task, worker, cookie, token, state, int(size), int(rated),
                         float(expires), session)

    async def study(self, name: str) -> web.Study | None:
        if not web.STUDY_NAME.fullmatch(name or ""):
            return None
        kept = self._study_rows.get(name)
        if kept is not None and time.monotonic() - kept[0] < STUDY_SECONDS:
            return kept[1]
        rows = await self._rows("SELECT * FROM simrate.web_study(%s)", (name,))
        return self._keep(rows[0]) if rows else None

    def _keep(self, row: tuple) -> web.Study:
        """The study of a row of the hub, kept for STUDY_SECONDS (only studies that exist
        are kept, so names sent by anyone cannot grow the table)."""
        study = self._study(row)
        self._study_rows[study.name] = (time.monotonic(), study)
        return study

    @staticmethod
    def _study(row: tuple) -> web.Study:
        n, k, c, r, minutes, url, code, secret, is_open, options = row[:10]
        return web.Study(n, int(k), int(c), int(r), float(minutes), url, code, secret,
                         bool(is_open), read_options(options))

    async def lease(self, name: str, worker: str, session: str, cookie: str | None,
                    address: str = "") -> web.Lease:
        web.check_worker_id(worker)
        rows = await self._rows("SELECT * FROM simrate.web_lease(%s, %s, %s, %s, %s)",
                                (name, worker, session or "", cookie or "", address))
        return self._lease(name, rows[0])

    async def task(self, name: str, cookie: str) -> tuple[web.Lease | None, web.Slot | None]:
        if not cookie or len(cookie) > 200:
            return None, None
        rows = await self._rows("SELECT * FROM simrate.web_task(%s, %s)", (name, cookie))
        if not rows or not hmac.compare_digest(rows[0][2], cookie):
            return None, None
        row = rows[0]
        slot = None if row[9] is None else web.Slot(int(row[9]), 0, row[10], row[11])
        return self._lease(name, row), slot

    async def slot(self, name: str, cookie: str, slot: int
                   ) -> tuple[web.Lease | None, web.Slot | None, float | None]:
        """The task the cookie names, its slot and the score saved for it (or None)."""
        if not cookie or len(cookie) > 200:
            return None, None, None
        rows = await self._rows("SELECT * FROM simrate.web_slot(%s, %s, %s)",
                                (name, cookie, slot))
        if not rows or not hmac.compare_digest(rows[0][2], cookie):
            return None, None, None
        row = rows[0]
        if row[9] is None:
            return self._lease(name, row), None, None
        saved = None if row[12] is None else self.scale.from_code(int(row[12]))
        return self._lease(name, row), web.Slot(int(row[9]), 0, row[10], row[11]), saved

    async def rate(self, name: str, cookie: str, token: str, slot: int, score: str
                   ) -> int | None:
        code = score_code(self.scale, score)  # ScoreRefused when off the scale
        rows = await self._rows("SELECT simrate.web_rate(%s, %s, %s, %s, %s)",
                                (name, cookie, token, slot, code))
        answer = rows[0][0] if rows else "done"
        return int(answer) if answer.isdigit() else None

    async def rate_and_show(self, name: str, cookie: str, token: str, slot: int, score: str
                            ) -> Shown:
        """One call of `simrate.web_rate_show`: the rating, committed (and flushed) in its
        own transaction, and the next page's row. A hub published before that function
        (no `web_rate_show`) answers through the three calls it has."""
        if not self.one_call:
            return await self._rate_then_read(name, cookie, token, slot, score)
        code = score_code(self.scale, score)  # ScoreRefused when off the scale
        if self.rate_groups is not None:
            row = await self._grouped_rate((name, cookie, token, slot, code))
        else:
            rows = await self._rows("SELECT * FROM simrate.web_rate_show(%s, %s, %s, %s, %s)",
                                    (name, cookie, token, slot, code))
            row = rows[0]
        self.wrote()
        following = None if row[9] is None else web.Slot(int(row[9]), 0, row[10], row[11])
        return Shown(self._keep(row[13:]), self._lease(name, row), following)

    async def _grouped_rate(self, params: tuple) -> tuple:
        """web_rate_show's row for one rating, sent with the others that reach the server
        at the same time (a rating given up for another's lock goes again, three tries)."""
        from simrate.web.hub_pool import CallFailed

        outcome = await self.rate_groups.outcome(params)
        if isinstance(outcome, CallFailed):
            raise _refused(outcome) from None
        if isinstance(outcome, BaseException):
            raise outcome
        if not isinstance(outcome, dict) or not outcome:
            raise SimrateError("the hub: a rating answered no row")
        return tuple(outcome.get(column) for column in RATE_SHOW_COLUMNS)

    async def _rate_calls(self, calls: list[tuple], _waited: list[float]) -> list:
        """The outcomes of ratings sent as one call of `simrate.web_rate_shows`: each its
        row (an object), a CallFailed, or what the whole call met."""
        import json

        from simrate.web.hub_pool import group_outcomes

        try:
            rows = await self._rows("SELECT simrate.web_rate_shows(%s::jsonb)",
                                    (json.dumps([list(call) for call in calls]),))
        except SimrateError as exc:  # the whole call (a WebRefusal is one too)
            return [exc] * len(calls)
        outcomes = group_outcomes(rows[0][0] if rows else None, len(calls))
        if outcomes is None:
            raise SimrateError("the hub: a group of ratings answered another number of them")
        return outcomes

    async def _rate_then_read(self, name: str, cookie: str, token: str, slot: int,
                              score: str) -> Shown:
        following = await self.rate(name, cookie, token, slot, score)
        study = await self.study(name)
        if following is None:
            lease, _ = await self.task(name, cookie)
            found = None
        else:
            lease, found, _saved = await self.slot(name, cookie, following)
        if study is None or lease is None:
            raise web.WebRefusal("not found", 404)
        return Shown(study, lease, found)

    async def failed_checks(self, name: str, cookie: str) -> int:
        """0: a hub study has no attention-check rule (the hub keeps no known scores of check
        items, so crowd study refuses --failed-checks on a hub)."""
        return 0

    async def practice(self, name: str, cookie: str, slot: int) -> None:
        """None: a hub study has no practice pairs (crowd study refuses --training there)."""
        return None

    async def invitee(self, token: str) -> str | None:
        raise Refused("personal links are served from a plain project file; on a hub each "
                      "person rates in their own replica", 404)

    async def invite_next(self, name: str):
        raise Refused("not found", 404)

    async def invite_rate(self, token: str, item_id: str, score: str) -> None:
        raise Refused("not found", 404)


def _refused(exc) -> Exception:
    """What a page meets for a hub error (a psycopg error, or a CallFailed of a group): a
    refusal of the hub's functions (SQLSTATE SRnnn) is a WebRefusal with status nnn; a
    second live task for one worker, `open_elsewhere`; anything else one line of ours."""
    state = getattr(exc, "sqlstate", "") or ""
    if state.startswith("SR") and state[2:].isdigit():
        diag = getattr(exc, "diag", None)
        text = getattr(diag, "message_primary", None) if diag is not None else str(exc)
        return web.WebRefusal(text or "refused", int(state[2:]))
    if state == "23505":
        return refusal("open_elsewhere")
    return _own_words(exc)


def _own_words(exc) -> SimrateError:
    """A hub error as one line of ours (hub/link/hub_errors.py); the hub's words go to this
    server's log only."""
    import logging

    from simrate.hub.link.hub_errors import ours, own_words, server_text

    if not ours(exc):
        logging.getLogger("simrate.web").warning(
            "refused by the hub (SQLSTATE %s): %s", getattr(exc, "sqlstate", "") or "-",
            server_text(exc))
    return SimrateError(f"the hub: {own_words(exc)[1]}")
