"""The one bounded reader of request bodies in `simrate serve`.

Every body is read from the ASGI receive channel through `bounded_receive` (the Guard in
security.py wraps every request's channel with it): the bytes are counted as they arrive,
chunked or not, whatever the Content-Length says, and the read stops at the route's cap
(BodyTooLarge, answered 413 with one line of our own and the connection closed). Routes
read the body with `read_body`, never whole before a check; JSON bodies are parsed by
`load_json`, which refuses a body nested deeper than MAX_JSON_DEPTH (400), so no body
reaches the server's log as a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from starlette.requests import Request

MAX_BODY = 4096  # bytes of a form: a token, a slot and a score need far fewer
#: A sync round (sync_service.py): its client sends 1,000 ratings a request at most.
SYNC_MAX_BODY = 4 * 1024 * 1024
#: The deepest nesting of arrays and objects a JSON body may have (a sync round has 3).
MAX_JSON_DEPTH = 32
SYNC_PATH = "/sync/round"


class BodyTooLarge(Exception):
    """A request body over its route's cap (answered 413, the connection closed)."""

    def __init__(self, limit: int):
        super().__init__(f"the request is too large: this server takes at most "
                         f"{_size(limit)} here")
        self.limit = limit


class BadBody(Exception):
    """A body that is no JSON, or nested too deeply (answered 400)."""


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit:,} bytes"


def body_limit(path: str) -> int:
    """The cap on the body of a request to `path`."""
    return SYNC_MAX_BODY if path == SYNC_PATH else MAX_BODY


def declared_too_large(headers: list[tuple[bytes, bytes]], limit: int) -> bool:
    """True when a Content-Length is no number or states more than `limit` bytes."""
    for key, value in headers:
        if key.lower() == b"content-length" and (not value.isdigit() or int(value) > limit):
            return True
    return False


Receive = Callable[[], Awaitable[dict]]


def bounded_receive(receive: Receive, limit: int) -> Receive:
    """`receive` that counts the body's bytes as they arrive and raises BodyTooLarge as
    soon as they pass `limit`: nothing past the cap is ever handed to the app."""
    seen = 0

    async def receive_bounded() -> dict:
        nonlocal seen
        message = await receive()
        if message.get("type") == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message

    return receive_bounded


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, read piece by piece and refused (BodyTooLarge) at `limit`."""
    if declared_too_large(list(request.headers.raw), limit):
        raise BodyTooLarge(limit)
    buffer = bytearray()
    async for piece in request.stream():
        buffer += piece
        if len(buffer) > limit:
            raise BodyTooLarge(limit)
    return bytes(buffer)


def load_json(body: bytes) -> object:
    """The JSON value of `body`; BadBody for a body that is not UTF-8 JSON or that nests
    arrays and objects deeper than MAX_JSON_DEPTH."""
    try:
        value = json.loads(body.decode("utf-8"))
    except RecursionError:
        raise BadBody(f"the body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, ValueError):
        raise BadBody("the body is not JSON") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise BadBody(f"the body nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def _depth(value: object) -> int:
    """The nesting depth of a decoded JSON value (iterative: no recursion to exhaust)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest
