"""The ASGI app of `simrate serve`: landing, item and last pages of each open web study,
and the personal pages of `simrate team invite`.

The same pages and routes run on either backend (backends.py): a plain project file or
an organizer's hub replica. Scores are checked against the grid; writes are rate limited
per worker and task starts per worker and per client address; a task is found only by
its own secret cookie, so one worker can read nothing of another's. The guards every
answer passes through are in security.py.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.core.team import web_study as web
from simrate.web import mturk
from simrate.web.backend_protocol import WebBackend
from simrate.web.backends import FileBackend
from simrate.web.bodies import BodyTooLarge
from simrate.web.security import (
    COOKIE,
    INVITE_COOKIE,
    Buckets,
    Guard,
    Refused,
    read_form,
    refused,
    status_of,
)
from simrate.web.slow_clients import SlowBody
from simrate.web.study_pages import StudyRoutes
from simrate.web.sync_service import SyncService

HERE = Path(__file__).resolve().parent
LOG = logging.getLogger("simrate.web")  # the server's own log (stderr), never a response


def scale_points(scale) -> list[dict]:
    """The scale's points for a page: value, label and guideline of each."""
    points = {p.value: p for p in scale.points}
    values = sorted(points) if points else [scale.low, scale.high]
    return [{"value": fmt(v), "label": points[v].label if v in points else "",
             "guideline": points[v].guideline if v in points else ""} for v in values]


def invite_write_token(token: str) -> str:
    """The token an invite page's form carries beside its cookie."""
    return hmac.new(token.encode(), b"write", "sha256").hexdigest()


class Pages(StudyRoutes):
    """The routes of the app over one backend: the templates, and the rate limits of
    this process (writes per task, task starts per worker and per client address)."""

    def __init__(self, backend: WebBackend, rate: float, burst: float,
                 ip_starts_per_minute: float):
        self.backend = backend
        self.templates = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                                     autoescape=True)
        self.writes = Buckets(rate, burst)
        self.starts = Buckets(rate / 4, burst / 2)
        self.ip_starts = Buckets(ip_starts_per_minute / 60.0, max(1.0, ip_starts_per_minute))

    def routes(self) -> list:
        return [
            Route("/", self.home, methods=["GET", "HEAD"]),
            Route("/study/{name}", self.landing, methods=["GET"]),
            Route("/study/{name}/start", self.start, methods=["POST"]),
            Route("/study/{name}/task", self.task, methods=["GET"]),
            Route("/study/{name}/task/{slot}", self.pair, methods=["GET"]),
            Route("/study/{name}/rate", self.rate, methods=["POST"]),
            Route("/invite/{token}", self.invite_page, methods=["GET"]),
            Route("/invite/{token}/rate", self.invite_rate, methods=["POST"]),
            # annotators' sync rounds, on an organizer's hub replica (sync_service.py)
            Route("/sync/round", SyncService(self.backend).round, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ]

    def page(self, name: str, status: int = 200, frame_from: str = "", **values
             ) -> HTMLResponse:
        """A page; `frame_from`: the origin that may frame it (Mechanical Turk mode)."""
        return HTMLResponse(self.templates.get_template(name).render(**values),
                            status_code=status, headers={"cache-control": "no-store",
                                                         **mturk.headers_for(frame_from)})

    def message(self, text: str, status: int, back: str = "") -> HTMLResponse:
        return self.page("message.html", status, message=text, back=back)

    def points(self) -> list[dict]:
        return scale_points(self.backend.scale)

    async def study_or_refuse(self, name: str, closed_ok: bool = False) -> web.Study:
        study = await self.backend.study(name)
        if study is None:
            raise refused("no_study")
        if not study.open and not closed_ok:
            raise refused("closed")
        return study

    async def home(self, request: Request) -> Response:
        return PlainTextResponse("simrate: ready\n", headers={"cache-control": "no-store"})

    async def invite_page(self, request: Request) -> Response:
        token = request.path_params["token"]
        name = await self.backend.invitee(token)
        if name is None:
            raise Refused("this link is not valid; ask the organizer for a new one", 403)
        entry = await self.backend.invite_next(name)
        if entry is None:
            response = self.message("All your items are rated. Thank you.", 200)
        else:
            item_id, left, right, done, total = entry
            scale = self.backend.scale
            response = self.page("item.html", action=f"/invite/{token}/rate",
                                 token=invite_write_token(token), item=item_id,
                                 position=done + 1, size=total, left=left, right=right,
                                 low=fmt(scale.low), high=fmt(scale.high), step=fmt(scale.step),
                                 points=scale_points(scale))
        response.set_cookie(INVITE_COOKIE, token, path=f"/invite/{token}/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")
        return response

    async def invite_rate(self, request: Request) -> Response:
        token = request.path_params["token"]
        form = await read_form(request)
        cookie = request.cookies.get(INVITE_COOKIE, "")
        if not (cookie and hmac.compare_digest(cookie, token) and hmac.compare_digest(
                invite_write_token(token), form.get("token", ""))):
            raise Refused("refused: this page has expired; open your link again", 403)
        if not self.writes.allow("invite\0" + token[:64]):
            raise Refused("too many requests; wait a moment", 429)
        # a score off the scale (400) or a page behind the project (409) is refused by type
        await self.backend.invite_rate(token, form.get("item", ""), form.get("score", ""))
        return RedirectResponse(f"/invite/{token}", status_code=303)

    async def refused(self, request: Request, exc: Exception) -> Response:
        back = back_link(request)
        if isinstance(exc, (Refused, web.WebRefusal)):
            return self.message(exc.message, status_of(exc), getattr(exc, "back", "") or back)
        if isinstance(exc, SlowBody):  # one line, and the connection closed
            LOG.warning("closed a connection from %s: its request body took too long",
                        client_of(request))
            return PlainTextResponse("the request took too long", status_code=408,
                                     headers={"connection": "close"})
        if isinstance(exc, BodyTooLarge):  # one line, and the rest of the body never read
            LOG.warning("refused a request body from %s over %s bytes", client_of(request),
                        f"{exc.limit:,}")
            return PlainTextResponse(str(exc), status_code=413, headers={
                "connection": "close", "cache-control": "no-store"})
        if isinstance(exc, ClientDisconnect):  # the client left mid-request: one line
            LOG.warning("client %s left during %s %s", client_of(request), request.method,
                        request.url.path[:80])
            return Response(status_code=400)
        if isinstance(exc, SimrateError):  # the file is busy or cannot be written: no detail
            LOG.warning("refused with 503: %s", str(exc)[:200])
            return self.message("the server is busy; try again in a moment", status_of(exc),
                                back)
        LOG.error("unexpected error on %s", request.url.path[:80], exc_info=exc)
        return self.message("something went wrong; try again in a moment", 500, back)

    @staticmethod
    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        text = {404: "not found", 405: "method not allowed"}.get(status, "refused")
        return PlainTextResponse(text, status_code=status if 400 <= status < 500 else 400)


def back_link(request: Request) -> str:
    """The way back to the task from an error page: the pair the request was about, else
    the task's next pair; a personal link's page; nothing for a landing page."""
    parts = request.url.path.split("/")
    if len(parts) >= 4 and parts[1] == "study" and COOKIE in request.cookies:
        return f"/study/{parts[2]}/task"
    if len(parts) >= 3 and parts[1] == "invite" and INVITE_COOKIE in request.cookies:
        return f"/invite/{parts[2]}"
    return ""


def client_of(request: Request) -> str:
    return request.client.host if request.client else "?"


def _lifespan(backend: WebBackend, owns: bool):
    """The app's lifespan: the backend opened (if the app owns it) and started before the
    first request, stopped and closed after the last."""

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

    return lifespan


def create_app(path: str | Path, *, backend: WebBackend | None = None, rate: float = 4.0,
               burst: float = 20.0, ip_starts_per_minute: float = 60.0) -> Guard:
    """The app serving the open studies of the project at `path` (opened on startup
    unless `backend` is given already open): the same pages and routes on either
    backend, FileBackend (a plain project file) or HubBackend (an organizer's replica).

    Limits per process: writes per task (`rate` a second, `burst` at once), task starts
    per worker, and task starts per client address (`ip_starts_per_minute`, the address
    the reverse proxy forwards when it runs on this machine)."""
    backend = backend if backend is not None else FileBackend(path)
    owns = not backend.opened
    pages = Pages(backend, rate, burst, ip_starts_per_minute)
    app = Starlette(routes=pages.routes(), lifespan=_lifespan(backend, owns),
                    exception_handlers={
                        Refused: pages.refused, web.WebRefusal: pages.refused,
                        BodyTooLarge: pages.refused,
                        SimrateError: pages.refused, Exception: pages.refused,
                        404: pages.not_found, 405: pages.not_found})
    app.state.backend = backend
    return Guard(app)
