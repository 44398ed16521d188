"""The web server's guards: body limits, security headers, rate limits and forms.

Jinja2 escapes every text (a `<script>` in a pair is shown, never run); a
Content-Security-Policy allows scripts and styles from this server only, no inline script;
the task's cookie is HttpOnly and SameSite=Strict and every write also carries the task's
own token, and a cross-site Origin is refused; bodies are limited in size (bodies.py) and writes rate
limited per worker; errors answer with one short sentence, never a traceback or a path.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request

from simrate.core.base import rules
from simrate.core.base.errors import SimrateError
from simrate.core.team.web_tables import WebRefusal
from simrate.web.bodies import (  # noqa: F401 - MAX_BODY and SYNC_MAX_BODY named here too
    MAX_BODY,
    SYNC_MAX_BODY,
    BodyTooLarge,
    body_limit,
    bounded_receive,
    declared_too_large,
    read_body,
)
from simrate.web.slow_clients import deadline_receive

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

    def __init__(self, message: str, status: int, back: str = ""):
        super().__init__(message)
        self.message, self.status, self.back = message, status, back


def refused(name: str, status: int | None = None) -> Refused:
    """The page's answer for the refusal `name` of core/base/rules.py REFUSALS, in the words
    the hub uses too; `status` where the page's request differs (a missing page: 404)."""
    default, message = rules.REFUSALS[name]
    return Refused(message, status or default)


def status_of(exc: BaseException) -> int:
    """The HTTP status an error is answered with, by its type alone (never its words): a
    refusal its own status (a score off the scale 400, a page behind the project 409, ...),
    any other SimrateError 503 (the file busy or unwritable), anything else 500."""
    if isinstance(exc, (Refused, WebRefusal)):
        return exc.status
    return 503 if isinstance(exc, SimrateError) else 500


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


DEFAULT_PORTS = {"http": 80, "https": 443}


def _same_origin(request: Request) -> bool:
    """False for a write that a page of another site sent (CSRF): the Origin must name
    this server's scheme, host and port (the scheme as the proxy on this machine says)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    try:
        theirs = urlsplit(origin)
        their_port = theirs.port or DEFAULT_PORTS.get(theirs.scheme)
        here = request.url
        our_port = here.port or DEFAULT_PORTS.get(here.scheme)
    except ValueError:  # a port that is no number
        return False
    return (theirs.scheme, (theirs.hostname or "").lower(), their_port) == \
        (here.scheme, (here.hostname or "").lower(), our_port) and origin != "null"


async def read_form(request: Request) -> dict[str, str]:
    """The request's urlencoded form, at most MAX_BODY bytes, each field once."""
    if not _same_origin(request):
        raise Refused("refused: this form was not sent from this site", 403)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused("send the page's own form", 415)
    body = await read_body(request, MAX_BODY)  # BodyTooLarge: 413 (pages.refused)
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                          max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        raise Refused("the form could not be read", 400) from None
    if any(len(values) != 1 for values in fields.values()):
        raise Refused("the form could not be read", 400)
    return {key: values[0] for key, values in fields.items()}


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
                own = {k.lower() for k, _v in headers}  # a page of a study that may be framed
                added = [(k, v) for k, v in SECURITY_HEADERS if k not in own and not (
                    k == b"x-frame-options" and b"content-security-policy" in own)]
                message = {**message, "headers": headers + added}
            await send(message)

        limit = body_limit(scope.get("path", ""))
        if declared_too_large(scope.get("headers", []), limit):
            return await _short(send_guarded, 413, str(BodyTooLarge(limit)).encode(), True)
        try:  # every body counted as it arrives and stopped at the cap (bodies.py)
            await self.app(scope, bounded_receive(deadline_receive(receive), limit),
                           send_guarded)
        except BodyTooLarge as exc:
            if not started:
                await _short(send_guarded, 413, str(exc).encode(), True)
        except Exception:  # noqa: BLE001 - a short answer, never a traceback
            if not started:
                await _short(send_guarded, 500, b"something went wrong; try again")


async def _short(send, status: int, text: bytes, close: bool = False) -> None:
    """A one-line plain answer; `close`: the connection closed after it (a body unread)."""
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(text)).encode()), (b"cache-control", b"no-store"),
        *([(b"connection", b"close")] if close else [])]})
    await send({"type": "http.response.body", "body": text})
