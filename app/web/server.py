"""The ASGI app of `simrate serve`: landing, item and last pages of each open web study.

One process writes to the project file through the Project's own connection, on one
database thread; every lease and every rating is one write transaction
(app/core/team/web_study.py) and is committed before the page says it is saved, so a
SIGTERM (uvicorn finishes the requests under way, then we close the file) loses no
acknowledged rating.

Security: Jinja2 escapes every text (a `<script>` in a pair is shown, never run); a
Content-Security-Policy allows scripts and styles from this server only, no inline script;
the task's cookie is HttpOnly and SameSite=Strict and every write also carries the task's
own token, and a cross-site Origin is refused; scores are checked against the grid; bodies
are limited in size and writes rate limited per worker; errors answer with one short
sentence, never a traceback or a path; a task is found only by its own secret cookie, so
one worker can read nothing of another's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import socket
import sqlite3
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from app.core import store
from app.core.errors import SimrateError
from app.core.project import Project
from app.core.scale import fmt
from app.core.team import invites
from app.core.team import web_study as web

HERE = Path(__file__).resolve().parent
LOG = logging.getLogger("simrate.web")  # the server's own log (stderr), never a response
MAX_BODY = 4096  # bytes of a form: a token, a slot and a score need far fewer
COOKIE = "simrate_task"
INVITE_COOKIE = "simrate_invite"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


class Refused(Exception):
    """A short answer for the browser with an HTTP status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


class Buckets:
    """Token buckets by key (a worker, a task): `burst` at once, `rate` a second after."""

    def __init__(self, rate: float, burst: float, size: int = 100_000):
        self.rate, self.burst, self.size = rate, burst, size
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        with self._lock:
            tokens, then = self._state.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= 1
            self._state[key] = (tokens - 1 if allowed else tokens, now)
            while len(self._state) > self.size:
                self._state.popitem(last=False)
        return allowed


class FileBackend:
    """The project file, written by one database thread of this process.

    The WAL is checkpointed by a thread of its own on a second SQLite connection (PASSIVE:
    it never blocks a writer), not by the commit that happens to fill it: a checkpoint of
    a large file takes a few hundred milliseconds, which would stall every request queued
    behind that commit.
    """

    CHECKPOINT_SECONDS = 1.0

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="simrate-db")
        self.project: Project | None = None
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None

    def open(self) -> None:
        self.project = self._pool.submit(Project.open, self.path).result()
        try:
            web.refuse_hub_replica(self.project)
        except SimrateError:
            self._pool.submit(self.project.close).result()
            self.project = None
            self._pool.shutdown(wait=True)
            raise
        self._pool.submit(self.project.team_tables.read, "PRAGMA wal_autocheckpoint = 0").result()
        self._checkpointer = threading.Thread(target=self._checkpoints, name="simrate-wal",
                                              daemon=True)
        self._checkpointer.start()

    def _checkpoints(self) -> None:
        conn = store.connect(self.path)
        try:
            while not self._stop.wait(self.CHECKPOINT_SECONDS):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass  # busy or read-only: the next round, or the closing connection
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
            self._checkpointer = None
        if self.project is not None:
            self._pool.submit(self.project.close).result()
            self.project = None
        self._pool.shutdown(wait=True)

    async def call(self, function, *args, **kwargs):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: function(self.project, *args,
                                                                       **kwargs))

    # the interface every backend gives the app (see HubBackend)
    @property
    def opened(self) -> bool:
        return self.project is not None

    @property
    def scale(self):
        return self.project.scale

    @property
    def title(self) -> str:
        return self.project.title

    async def start(self) -> None:
        """Nothing to start in the event loop: the file is opened by open()."""

    async def stop(self) -> None:
        """Nothing to stop in the event loop: the file is closed by close()."""

    def open_studies(self) -> list[str]:
        return [s.name for s in self._pool.submit(web.studies, self.project).result()
                if s.open]

    async def study(self, name: str) -> web.Study | None:
        return await self.call(web.get_study, name)

    async def lease(self, name: str, worker: str, session: str, cookie: str | None
                    ) -> web.Lease:
        return await self.call(web.lease, name, worker, session, cookie)

    async def task(self, name: str, cookie: str) -> tuple[web.Lease | None, web.Slot | None]:
        def both(project: Project):
            found = web.task_by_cookie(project, name, cookie)
            if found is None or found.state != "leased":
                return found, None
            return found, web.next_slot(project, found)

        return await self.call(both)

    async def rate(self, name: str, cookie: str, token: str, slot: int, score: str) -> None:
        await self.call(web.rate_slot, name, cookie, token, slot, score)

    async def invitee(self, token: str) -> str | None:
        return await self.call(invitee_now, token)

    async def invite_next(self, name: str):
        return await self.call(invites.next_item, name)

    async def invite_rate(self, token: str, item_id: str, score: str) -> None:
        await self.call(rate_invited_now, token, item_id, score)


class HubBackend:
    """An organizer's hub replica: every lease and rating is one call of a hub function
    (hub_schema.py), made as the hub's web login over psycopg's connection pool. The
    project file is read once, when the server opens (the hub's URL and web login, the
    scale, the title), and never written; nothing lives in the process but the pool, so
    any number of servers can run side by side behind a reverse proxy."""

    def __init__(self, path: str | Path, min_size: int = 2, max_size: int = 8):
        self.path = Path(path)
        self.min_size, self.max_size = min_size, max_size
        self.url = ""
        self._scale = None
        self._title = ""
        self._studies: list[str] = []
        self.pool = None
        self.opened = False

    @property
    def scale(self):
        return self._scale

    @property
    def title(self) -> str:
        return self._title

    def open(self) -> None:
        """Read the replica's settings and check that the hub answers to the web login
        (SimrateError, one line, before anything listens)."""
        import psycopg

        from app.core.team.hub.connection import connect, explain
        from app.core.team.hub.web_hub import web_url

        with Project.open(self.path) as project:
            self.url = web_url(project)
            self._scale, self._title = project.scale, project.title
            self._studies = [s.name for s in web.studies(project) if s.open]
        conn = connect(self.url)
        try:
            conn.execute("SELECT count(*) FROM simrate.web_study('')").fetchone()
        except psycopg.Error as exc:
            raise explain(exc, self.url) from None
        finally:
            conn.close()
        self.opened = True

    async def start(self) -> None:
        from psycopg_pool import AsyncConnectionPool

        from app.core.team.hub.connection import CONNECT_TIMEOUT

        self.pool = AsyncConnectionPool(
            self.url, min_size=self.min_size, max_size=self.max_size, open=False, timeout=10,
            kwargs={"autocommit": True, "prepare_threshold": None,
                    "connect_timeout": CONNECT_TIMEOUT, "application_name": "simrate serve"})
        await self.pool.open(wait=True, timeout=30)

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    def close(self) -> None:
        self.opened = False

    def open_studies(self) -> list[str]:
        return list(self._studies)

    async def _rows(self, sql: str, params: tuple, flush_after: bool = False) -> list[tuple]:
        """The rows of one call; a refusal of the hub's functions (SQLSTATE SRnnn) becomes
        a WebRefusal with status nnn; a deadlock is tried again; anything else of the hub
        is SimrateError (the page says the server is busy, the log says why).

        `flush_after`: a write. Every write of the hub takes its sequence stamp under one
        lock held until its commit ends, so a commit that waited for the disk would keep
        every other writer waiting on this flush too. The call's commit does not wait; a
        statement after it in the same message does (it takes a transaction id, whose
        commit is flushed with everything before it), with the lock released: the rating
        is on disk before the worker's browser hears it was saved."""
        import psycopg
        from psycopg_pool import PoolTimeout

        for attempt in range(3):
            try:
                async with self.pool.connection() as conn:
                    if flush_after:
                        return await _write_then_flush(conn, sql, params)
                    cursor = await conn.execute(sql, params)
                    return await cursor.fetchall()
            except psycopg.Error as exc:
                state = exc.sqlstate or ""
                if state.startswith("SR") and state[2:].isdigit():
                    raise web.WebRefusal(exc.diag.message_primary or "refused",
                                         int(state[2:])) from None
                if state in ("40P01", "40001") and attempt < 2:
                    continue
                if isinstance(exc, psycopg.OperationalError) and not state and attempt < 2:
                    # a pooled connection the hub closed (a restart): the pool drops it and
                    # the call goes on a fresh one (a rating sent again is 'again'; a lease
                    # that was taken before the reply was lost answers 409, the task open)
                    continue
                if state == "23505":  # a second live task for one worker
                    raise web.WebRefusal("this worker already has a task open in another "
                                         "browser; go back to it, or wait until it times "
                                         "out", 409) from None
                raise SimrateError(f"the hub: {str(exc).strip()[:200]}") from None
            except PoolTimeout:
                raise SimrateError("the hub: no connection free in time") from None
        raise SimrateError("the hub: deadlocked three times")

    @staticmethod
    def _lease(name: str, row: tuple) -> web.Lease:
        task, worker, cookie, token, state, size, rated, expires = row[:8]
        return web.Lease(name, task, worker, cookie, token, state, int(size), int(rated),
                         float(expires))

    async def study(self, name: str) -> web.Study | None:
        if not web.STUDY_NAME.fullmatch(name or ""):
            return None
        rows = await self._rows("SELECT * FROM simrate.web_study(%s)", (name,))
        if not rows:
            return None
        n, k, c, r, minutes, url, code, secret, is_open = rows[0]
        return web.Study(n, int(k), int(c), int(r), float(minutes), url, code, secret,
                         bool(is_open))

    async def lease(self, name: str, worker: str, session: str, cookie: str | None
                    ) -> web.Lease:
        web.check_worker_id(worker)
        rows = await self._rows("SELECT * FROM simrate.web_lease(%s, %s, %s, %s)",
                                (name, worker, session or "", cookie or ""))
        return self._lease(name, rows[0])

    async def task(self, name: str, cookie: str) -> tuple[web.Lease | None, web.Slot | None]:
        if not cookie or len(cookie) > 200:
            return None, None
        rows = await self._rows("SELECT * FROM simrate.web_task(%s, %s)", (name, cookie))
        if not rows or not hmac.compare_digest(rows[0][2], cookie):
            return None, None
        row = rows[0]
        slot = None if row[8] is None else web.Slot(int(row[8]), 0, row[9], row[10])
        return self._lease(name, row), slot

    async def rate(self, name: str, cookie: str, token: str, slot: int, score: str) -> None:
        try:
            code = self._scale.parse(str(score)[:40])
        except SimrateError:
            raise web.WebRefusal(f"the score must be a value of the scale "
                                 f"{self._scale.describe()}", 400) from None
        await self._rows("SELECT simrate.web_rate(%s, %s, %s, %s, %s)",
                         (name, cookie, token, slot, code), flush_after=True)

    async def invitee(self, token: str) -> str | None:
        raise Refused("personal links are served from a plain project file; on a hub each "
                      "person rates in their own replica", 404)

    async def invite_next(self, name: str):
        raise Refused("not found", 404)

    async def invite_rate(self, token: str, item_id: str, score: str) -> None:
        raise Refused("not found", 404)


async def _write_then_flush(conn, sql: str, params: tuple) -> list[tuple]:
    """Run the write `sql` in a transaction whose commit does not wait for the disk, then,
    in the same message, a statement whose commit does; the write's rows."""
    import psycopg

    cursor = psycopg.AsyncClientCursor(conn)
    call = cursor.mogrify(sql, params)
    try:
        await cursor.execute(f"BEGIN; SET LOCAL synchronous_commit = off; {call}; COMMIT; "
                             "SELECT pg_current_xact_id()")
    except psycopg.Error:
        await conn.rollback()  # the call failed inside the transaction: end it here
        raise
    while cursor.description is None and cursor.nextset():
        pass
    return await cursor.fetchall()


def backend_for(path: str | Path):
    """The backend for this project: the hub for an organizer's replica, else the file."""
    with Project.open(path) as project:
        replica = bool(project.meta("hub_url"))
    return HubBackend(path) if replica else FileBackend(path)


def invitee_now(project: Project, token: str) -> str | None:
    """The person a link names, with the project brought up to date first (the organizer
    may have added items or people since the server opened the file)."""
    project.refresh()
    return invites.invitee(project, token)


def rate_invited_now(project: Project, token: str, item_id: str, score: str) -> str:
    project.refresh()
    if not project.has_item(item_id):
        raise SimrateError("this item is not the one to rate now; reload the page")
    return invites.rate_invited(project, token, item_id, score)


def _same_origin(request: Request) -> bool:
    """False for a write that a page of another site sent (CSRF)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "") and origin != "null"


async def _form(request: Request) -> dict[str, str]:
    """The request's urlencoded form, at most MAX_BODY bytes, each field once."""
    if not _same_origin(request):
        raise Refused("refused: this form was not sent from this site", 403)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused("send the page's own form", 415)
    length = request.headers.get("content-length")
    if length is not None and (not (length.isascii() and length.isdigit()) or int(length) > MAX_BODY):
        raise Refused("the request is too large", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused("the request is too large", 413)
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                          max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        raise Refused("the form could not be read", 400) from None
    if any(len(values) != 1 for values in fields.values()):
        raise Refused("the form could not be read", 400)
    return {key: values[0] for key, values in fields.items()}


def create_app(path: str | Path, *, backend=None, rate: float = 4.0, burst: float = 20.0,
               ip_starts_per_minute: float = 60.0) -> Starlette:
    """The app serving the open studies of the project at `path` (opened on startup
    unless `backend` is given already open): the same pages and routes on either
    backend, FileBackend (a plain project file) or HubBackend (an organizer's replica).

    Limits per process: writes per task (`rate` a second, `burst` at once), task starts
    per worker, and task starts per client address (`ip_starts_per_minute`, the address
    the reverse proxy forwards when it runs on this machine)."""
    backend = backend or FileBackend(path)
    owns = not backend.opened
    pages = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=True)
    writes = Buckets(rate, burst)
    starts = Buckets(rate / 4, burst / 2)
    ip_starts = Buckets(ip_starts_per_minute / 60.0, max(1.0, ip_starts_per_minute))

    def page(name: str, status: int = 200, **values) -> HTMLResponse:
        return HTMLResponse(pages.get_template(name).render(**values), status_code=status,
                            headers={"cache-control": "no-store"})

    def message(text: str, status: int) -> HTMLResponse:
        return page("message.html", status, message=text)

    async def study_or_refuse(name: str) -> web.Study:
        study = await backend.study(name)
        if study is None:
            raise Refused("no such study", 404)
        if not study.open:
            raise Refused("this study is closed", 410)
        return study

    def scale_points(scale) -> list[dict]:
        points = {p.value: p for p in scale.points}
        values = sorted(points) if points else [scale.low, scale.high]
        return [{"value": fmt(v), "label": points[v].label if v in points else "",
                 "guideline": points[v].guideline if v in points else ""} for v in values]

    async def home(request: Request) -> Response:
        return PlainTextResponse("simrate: ready\n", headers={"cache-control": "no-store"})

    async def landing(request: Request) -> Response:
        study = await study_or_refuse(request.path_params["name"])
        query = request.query_params
        worker = query.get("PROLIFIC_PID") or query.get("worker") or ""
        try:
            web.check_worker_id(worker)
        except web.WebRefusal as refusal:
            raise Refused(refusal.message, refusal.status) from None
        scale = backend.scale
        return page("landing.html", title=backend.title or "Rate text pairs",
                    study=study.name, worker=worker, session=query.get("SESSION_ID", "")[:100],
                    start_token=study.start_token(worker), size=study.per_task + study.checks,
                    scale_title=scale.title, scale_description=scale.description,
                    points=scale_points(scale), top=fmt(scale.high), step=fmt(scale.step))

    async def start(request: Request) -> Response:
        name = request.path_params["name"]
        form = await _form(request)
        study = await study_or_refuse(name)
        worker = form.get("worker", "")
        if not hmac.compare_digest(study.start_token(worker), form.get("start_token", "")):
            raise Refused("refused: open your study link again", 403)
        if not starts.allow(f"{name}\0{worker}"):
            raise Refused("too many requests; wait a moment", 429)
        if not ip_starts.allow(request.client.host if request.client else ""):
            raise Refused("too many tasks started from this address; wait a moment", 429)
        lease = await backend.lease(name, worker, form.get("session", ""),
                                    request.cookies.get(COOKIE))
        response = RedirectResponse(f"/study/{name}/task", status_code=303)
        response.set_cookie(COOKIE, lease.cookie, max_age=int(study.lease_minutes * 60) + 86400,
                            path=f"/study/{name}/", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response

    async def task(request: Request) -> Response:
        name = request.path_params["name"]
        study = await study_or_refuse(name)
        lease, slot = await backend.task(name, request.cookies.get(COOKIE, ""))
        if lease is None:
            raise Refused("no task is open in this browser; open your study link again", 403)
        if lease.done:
            return page("done.html", code=study.code, completion_url=study.completion_url)
        if lease.state != "leased" or lease.expires_at <= time.time():
            raise Refused("the time for this task ran out; open your study link again for "
                          "a new one", 409)
        if slot is None:  # rated in full meanwhile: the task is done
            return page("done.html", code=study.code, completion_url=study.completion_url)
        scale = backend.scale
        return page("item.html", action=f"/study/{name}/rate", token=lease.token, slot=slot.slot,
                    position=lease.rated + 1, size=lease.size, left=slot.left,
                    right=slot.right, low=fmt(scale.low), high=fmt(scale.high),
                    step=fmt(scale.step), points=scale_points(scale))

    async def rate_(request: Request) -> Response:
        name = request.path_params["name"]
        form = await _form(request)
        cookie = request.cookies.get(COOKIE, "")
        if not cookie or not form.get("token"):
            raise Refused("refused: this page has expired; open your study link again", 403)
        if not writes.allow(cookie[:64]):
            raise Refused("too many requests; wait a moment", 429)
        slot = form.get("slot", "")
        if not (slot.isascii() and slot.isdigit()) or len(slot) > 6:
            raise Refused("no such item in this task", 400)
        await backend.rate(name, cookie, form["token"], int(slot), form.get("score", ""))
        return RedirectResponse(f"/study/{name}/task", status_code=303)

    def invite_write_token(token: str) -> str:
        return hmac.new(token.encode(), b"write", "sha256").hexdigest()

    async def invite_page(request: Request) -> Response:
        token = request.path_params["token"]
        name = await backend.invitee(token)
        if name is None:
            raise Refused("this link is not valid; ask the organizer for a new one", 403)
        entry = await backend.invite_next(name)
        if entry is None:
            response = message("All your items are rated. Thank you.", 200)
        else:
            item_id, left, right, done, total = entry
            scale = backend.scale
            response = page("item.html", action=f"/invite/{token}/rate",
                            token=invite_write_token(token), item=item_id, position=done + 1,
                            size=total, left=left, right=right, low=fmt(scale.low),
                            high=fmt(scale.high), step=fmt(scale.step),
                            points=scale_points(scale))
        response.set_cookie(INVITE_COOKIE, token, path=f"/invite/{token}/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return response

    async def invite_rate(request: Request) -> Response:
        token = request.path_params["token"]
        form = await _form(request)
        cookie = request.cookies.get(INVITE_COOKIE, "")
        if not (cookie and hmac.compare_digest(cookie, token) and hmac.compare_digest(
                invite_write_token(token), form.get("token", ""))):
            raise Refused("refused: this page has expired; open your link again", 403)
        if not writes.allow("invite\0" + token[:64]):
            raise Refused("too many requests; wait a moment", 429)
        try:
            await backend.invite_rate(token, form.get("item", ""), form.get("score", ""))
        except SimrateError as exc:
            if exc.message.startswith("score"):
                raise Refused("the score must be a value of the scale "
                              f"{backend.scale.describe()}", 400) from None
            if exc.message.startswith(("this item", "this link")):
                raise Refused(exc.message, 409) from None
            raise
        return RedirectResponse(f"/invite/{token}", status_code=303)

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, Refused):
            return message(exc.message, exc.status)
        if isinstance(exc, web.WebRefusal):
            return message(exc.message, exc.status)
        if isinstance(exc, SimrateError):  # the file is busy or cannot be written: no detail
            LOG.warning("refused with 503: %s", exc)
            return message("the server is busy; try again in a moment", 503)
        LOG.error("unexpected error on %s", request.url.path, exc_info=exc)
        return message("something went wrong; try again in a moment", 500)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        text = {404: "not found", 405: "method not allowed"}.get(status, "refused")
        return PlainTextResponse(text, status_code=status if 400 <= status < 500 else 400)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if owns:
            backend.open()
        try:
            await backend.start()
            try:
                yield
            finally:
                await backend.stop()
        finally:
            if owns:
                backend.close()

    routes = [
        Route("/", home, methods=["GET", "HEAD"]),
        Route("/study/{name}", landing, methods=["GET"]),
        Route("/study/{name}/start", start, methods=["POST"]),
        Route("/study/{name}/task", task, methods=["GET"]),
        Route("/study/{name}/rate", rate_, methods=["POST"]),
        Route("/invite/{token}", invite_page, methods=["GET"]),
        Route("/invite/{token}/rate", invite_rate, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        Refused: refused, web.WebRefusal: refused, SimrateError: refused, Exception: refused,
        404: not_found, 405: not_found})
    app.state.backend = backend
    return Guard(app)


class Guard:
    """Outermost ASGI layer: security headers on every answer, no Server header, bodies
    over the limit refused before the app reads them, and a short 500 for anything that
    slipped through."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def send_guarded(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"server",)]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        for key, value in scope.get("headers", []):
            if key == b"content-length" and (not value.isdigit() or int(value) > MAX_BODY):
                return await _short(send_guarded, 413, b"the request is too large")
        try:
            await self.app(scope, receive, send_guarded)
        except Exception:  # noqa: BLE001 - a short answer, never a traceback
            if not started:
                await _short(send_guarded, 500, b"something went wrong; try again")


async def _short(send, status: int, text: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(text)).encode()), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": text})


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound socket for the server, or SimrateError saying why there is none."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise SimrateError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise SimrateError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _server_class():
    import uvicorn

    class Stoppable(uvicorn.Server):
        """uvicorn's server, ending with status 0 after a SIGTERM or SIGINT it handled
        (uvicorn raises the signal again once it has stopped, which ends with -15)."""

        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()

    return Stoppable


def serve(path: str | Path, host: str = "127.0.0.1", port: int = 8000,
          say=print, ip_starts_per_minute: float = 60.0) -> None:
    """Serve the open studies until SIGTERM or SIGINT; the file (or the hub, for an
    organizer's replica) is opened before the port answers, and closed after the last
    request under way has finished."""
    import uvicorn

    _Server = _server_class()
    backend = backend_for(path)  # SimrateError (no such file, not a project) first
    backend.open()  # SimrateError (the file, or the hub refuses) before anything listens
    try:
        open_studies = backend.open_studies()
        sock = listening_socket(host, port)
        app = create_app(path, backend=backend, ip_starts_per_minute=ip_starts_per_minute)
        config = uvicorn.Config(app, lifespan="on",
                                server_header=False, access_log=False, log_level="warning",
                                proxy_headers=True, timeout_graceful_shutdown=20,
                                timeout_keep_alive=30,
                                h11_max_incomplete_event_size=16 * 1024)
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        where = " through the hub" if isinstance(backend, HubBackend) else ""
        say(f"serving {len(open_studies)} open studies of {path}{where} on "
            f"http://{shown}:{bound[1]}/ " + (f"({', '.join(open_studies)})" if open_studies
                                             else "(none open: simrate crowd study)"),
            flush=True)
        _Server(config).run(sockets=[sock])
    finally:
        backend.close()
