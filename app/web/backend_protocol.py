"""The one face of the web pages' backends: `WebBackend`, a typed Protocol that the file
backend (backends.FileBackend: the project file, one database thread) and the hub backend
(hub_backend.HubBackend: the hub's functions over a pool of its web login) both implement,
and that the pages and the server are typed against. tests/contract/test_web_backends.py
runs one set of cases (lease, rate, correct, finish, resume, refusals) against both.

Refusals are `WebRefusal` (a short message for the worker and an HTTP status) on both; the
words and statuses are rules of simrate.core.base.rules, the same on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from simrate.core.base.scale import Scale
from simrate.core.team.crowdweb.training import Practice
from simrate.core.team.web_tables import Lease, Slot, Study


@dataclass(frozen=True)
class Shown:
    """What a rating leads to, read in the rating's own call: the study, the task after the
    rating and its next unrated pair (None: none is left, the code page follows)."""

    study: Study
    lease: Lease
    slot: Slot | None


@runtime_checkable
class WebBackend(Protocol):
    """Where the web pages read and write: opened before the port answers, started in
    the event loop, stopped and closed after the last request under way."""

    @property
    def opened(self) -> bool:
        """Whether open() has run (and close() not yet)."""
        ...

    @property
    def scale(self) -> Scale:
        """The project's scale (read when opened)."""
        ...

    @property
    def title(self) -> str:
        """The project's title (read when opened)."""
        ...

    def open(self) -> None:
        """Open the file or check the hub; SimrateError (one line) when it cannot be."""

    def close(self) -> None:
        """Close what open() opened."""

    async def start(self) -> None:
        """Start what runs in the event loop (the hub's connection pool)."""

    async def stop(self) -> None:
        """Stop what start() started."""

    def open_studies(self) -> list[str]:
        """The names of the studies open when the backend was opened."""
        ...

    async def study(self, name: str) -> Study | None:
        """The study of this name, or None."""
        ...

    async def lease(self, name: str, worker: str, session: str, cookie: str | None,
                    address: str = "") -> Lease:
        """The worker's live task (resumed by its cookie), finished task, or a new one;
        WebRefusal when none can be given."""
        ...

    async def task(self, name: str, cookie: str) -> tuple[Lease | None, Slot | None]:
        """The task the cookie names and its first unrated slot (None: none or done)."""
        ...

    async def slot(self, name: str, cookie: str, slot: int
                   ) -> tuple[Lease | None, Slot | None, float | None]:
        """The task the cookie names, one of its slots and the score saved for it."""
        ...

    async def rate(self, name: str, cookie: str, token: str, slot: int, score: str
                   ) -> int | None:
        """Save or correct the slot's score; the next unrated slot (None: none left)."""
        ...

    async def rate_and_show(self, name: str, cookie: str, token: str, slot: int, score: str
                            ) -> Shown:
        """Save or correct the slot's score and read what the next page shows, in one call
        (on a hub: one round trip and one commit)."""
        ...

    async def failed_checks(self, name: str, cookie: str) -> int:
        """The failed attention checks of the task the cookie names (0 without the rule)."""
        ...

    async def practice(self, name: str, cookie: str, slot: int) -> Practice | None:
        """The practice pair `slot` of the task the cookie names (None: a real pair)."""
        ...

    async def invitee(self, token: str) -> str | None:
        """The person a personal link names (a plain file only)."""
        ...

    async def invite_next(self, name: str) -> Any:
        """The next item a person of a personal link rates (a plain file only)."""
        ...

    async def invite_rate(self, token: str, item_id: str, score: str) -> None:
        """A rating through a personal link (a plain file only)."""
