"""Announcer: the hub's news of what serve wrote, sent after the writes' commits, together.

An organizer's window wakes when the hub announces a write on the organizers' channel
(NOTIFY); it then pulls. A transaction that notifies takes one database-wide lock at its
commit and holds it while the commit waits for the disk, so notifying inside every
rating's transaction would make concurrent ratings commit one after the other. The hub's
two calls on serve's hot path (`web_rate_show`, `sync_round`) therefore leave their
transaction quiet (hub/schema/tables.py: a mark only the hub can make), and serve calls
`simrate.announce_writes` afterwards: at most once every `DELAY` seconds, for everything
committed meanwhile, in a transaction of its own that writes nothing else (PostgreSQL does
not wait for the disk at such a commit).

A notification carries no data and losing one loses nothing: the window also polls every
few seconds. So a failed announcement is logged and dropped, never retried, and a rating
never waits for one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

LOG = logging.getLogger("simrate.serve")

#: At most this long between a committed write and its announcement (seconds).
DELAY = 0.1


class Announcer:
    """Collects the names of the people whose ratings serve stored (crowd workers have
    no channel of their own: None) and announces them with one call per `DELAY`."""

    def __init__(self, pool: Any, delay: float = DELAY):
        self.pool, self.delay = pool, delay
        self.pending = False
        self.names: set[str] = set()
        self.sent = 0  # announcements made (the tests read it)
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def note(self, name: str | None = None) -> None:
        """A write was committed; `name`: the person whose rating it was, if any."""
        self.pending = True
        if name:
            self.names.add(name)
        self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.delay)  # what else commits meanwhile goes along
            await self.flush()

    async def flush(self) -> None:
        """Announce what is pending now (nothing when nothing is)."""
        self._wake.clear()
        if not self.pending:
            return
        from simrate.web.hub_pool import closed_when_stale

        names, self.names, self.pending = sorted(self.names), set(), False
        try:
            async with self.pool.connection() as conn:
                async with closed_when_stale(conn):  # the next flush gets a fresh one
                    await conn.execute("SELECT simrate.announce_writes(%s)", (names,))
            self.sent += 1
        except Exception as exc:  # noqa: BLE001 - a lost announcement costs one poll's wait
            LOG.warning("the hub's announcement of new ratings failed (%s); the organizers' "
                        "windows see them at their next poll", type(exc).__name__)

    async def stop(self) -> None:
        """Announce what is left, then end (before the pool closes)."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        await self.flush()
