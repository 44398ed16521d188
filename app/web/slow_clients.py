"""Bounds on slow and broken clients, per `simrate serve` process.

- Headers: a connection that has not sent a whole request line and headers within
  HEADER_SECONDS of opening, or of the first byte of its next request, is closed (uvicorn's
  own keep-alive timer covers only an idle connection, and stops at the first byte, so a
  client sending a byte now and then would hold the connection for ever).
- Bodies: a request whose body has not arrived in full within BODY_SECONDS is answered 408
  and its connection closed (ASGI layer, `BodyDeadline`).
- Connections: at most `--max-connections` open at once; requests beyond it are answered
  503 by uvicorn (`limit_concurrency`); the process's file limit is raised to its hard
  limit so the cap, not the file limit, is what a flood meets first.
- Logs: one line per client dropped, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 30.0
BODY_SECONDS = 30.0
LOG = logging.getLogger("simrate.web")


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's line and headers."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def _arm(self, started: str = "opened") -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._too_slow, started)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._arm("began a request")  # its line and headers have a deadline
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a whole request line and headers came in
            self._disarm()

    def on_response_complete(self) -> None:
        self._disarm()  # idle now: uvicorn's keep-alive timer takes over
        super().on_response_complete()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _too_slow(self, started: str) -> None:
        self._header_timer = None
        if self.transport.is_closing() or (self.cycle is not None
                                           and not self.cycle.response_complete):
            return
        host = self.client[0] if self.client else "?"
        LOG.warning("closed a connection from %s: no whole request %.0f s after it %s", host,
                    HEADER_SECONDS, started)
        self.transport.close()


class SlowBody(Exception):
    """A request body that did not arrive within BODY_SECONDS."""


def deadline_receive(receive):
    """`receive` with a deadline for the whole request body (SlowBody after it)."""
    ends = time.monotonic() + BODY_SECONDS
    state = {"done": False}

    async def receive_bounded():
        if state["done"]:
            return await receive()
        left = ends - time.monotonic()
        try:
            message = await asyncio.wait_for(receive(), max(0.01, left))
        except asyncio.TimeoutError:
            raise SlowBody() from None
        if message.get("type") != "http.request" or not message.get("more_body"):
            state["done"] = True
        return message

    return receive_bounded


def raise_file_limit() -> None:
    """The soft limit of open files up to the hard one (a cap of connections means
    nothing when the file limit is lower)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = hard if hard != resource.RLIM_INFINITY else 65536
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ImportError, ValueError, OSError):
        pass
