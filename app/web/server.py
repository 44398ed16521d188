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
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
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


def create_app(path: str | Path, *, backend: FileBackend | None = None,
               rate: float = 4.0, burst: float = 20.0) -> Starlette:
    """The app serving the open studies of the project at `path` (opened on startup
    unless `backend` is given already open)."""
    backend = backend or FileBackend(path)
    owns = backend.project is None
    pages = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=True)
    writes = Buckets(rate, burst)
    starts = Buckets(rate / 4, burst / 2)

    def page(name: str, status: int = 200, **values) -> HTMLResponse:
        return HTMLResponse(pages.get_template(name).render(**values), status_code=status,
                            headers={"cache-control": "no-store"})

    def message(text: str, status: int) -> HTMLResponse:
        return page("message.html", status, message=text)

    async def study_or_refuse(name: str) -> web.Study:
        study = await backend.call(web.get_study, name)
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
        scale = backend.project.scale
        return page("landing.html", title=backend.project.title or "Rate text pairs",
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
        lease = await backend.call(web.lease, name, worker, form.get("session", ""),
                                   request.cookies.get(COOKIE))
        response = RedirectResponse(f"/study/{name}/task", status_code=303)
        response.set_cookie(COOKIE, lease.cookie, max_age=int(study.lease_minutes * 60) + 86400,
                            path=f"/study/{name}/", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response

    async def task(request: Request) -> Response:
        name = request.path_params["name"]
        study = await study_or_refuse(name)
        lease = await backend.call(web.task_by_cookie, name, request.cookies.get(COOKIE, ""))
        if lease is None:
            raise Refused("no task is open in this browser; open your study link again", 403)
        if lease.done:
            return page("done.html", code=study.code, completion_url=study.completion_url)
        if lease.state != "leased" or lease.expires_at <= time.time():
            raise Refused("the time for this task ran out; open your study link again for "
                          "a new one", 409)
        slot = await backend.call(web.next_slot, lease)
        scale = backend.project.scale
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
        if not slot.isdigit() or len(slot) > 6:
            raise Refused("no such item in this task", 400)
        await backend.call(web.rate_slot, name, cookie, form["token"], int(slot),
                           form.get("score", ""))
        return RedirectResponse(f"/study/{name}/task", status_code=303)

    def invite_write_token(token: str) -> str:
        return hmac.new(token.encode(), b"write", "sha256").hexdigest()

    async def invite_page(request: Request) -> Response:
        token = request.path_params["token"]
        name = await backend.call(invitee_now, token)
        if name is None:
            raise Refused("this link is not valid; ask the organizer for a new one", 403)
        entry = await backend.call(invites.next_item, name)
        if entry is None:
            response = message("All your items are rated. Thank you.", 200)
        else:
            item_id, left, right, done, total = entry
            scale = backend.project.scale
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
            await backend.call(rate_invited_now, token, form.get("item", ""),
                               form.get("score", ""))
        except SimrateError as exc:
            if exc.message.startswith("score"):
                raise Refused("the score must be a value of the scale "
                              f"{backend.project.scale.describe()}", 400) from None
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
            yield
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
          say=print) -> None:
    """Serve the open studies until SIGTERM or SIGINT; the file is opened before the port
    answers, and closed after the last request under way has finished."""
    import uvicorn

    _Server = _server_class()
    backend = FileBackend(path)
    backend.open()  # SimrateError (no such file, not a project) before anything listens
    try:
        open_studies = [s.name for s in backend._pool.submit(
            web.studies, backend.project).result() if s.open]
        sock = listening_socket(host, port)
        config = uvicorn.Config(create_app(path, backend=backend), lifespan="on",
                                server_header=False, access_log=False, log_level="warning",
                                proxy_headers=True, timeout_graceful_shutdown=20,
                                timeout_keep_alive=30,
                                h11_max_incomplete_event_size=16 * 1024)
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        say(f"serving {len(open_studies)} open studies of {path} on "
            f"http://{shown}:{bound[1]}/ " + (f"({', '.join(open_studies)})" if open_studies
                                             else "(none open: simrate crowd study)"),
            flush=True)
        _Server(config).run(sockets=[sock])
    finally:
        backend.close()
