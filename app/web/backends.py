"""Where the web pages read and write: a plain project file (FileBackend) or, for an
organizer's replica, the hub (HubBackend, hub_backend.py). Both implement the typed
Protocol `WebBackend` (backend_protocol.py), so the pages and routes are the same on either.

FileBackend writes to the project file through the Project's own connection, on one
database thread; every lease and every rating is one write transaction
(app/core/team/web_tasks/) and is committed before the page says it is saved, so a
SIGTERM (uvicorn finishes the requests under way, then we close the file) loses no
acknowledged rating.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.data import store
from simrate.core.project import Project
from simrate.core.team import invites
from simrate.core.team import web_study as web
from simrate.core.team.teamdb import hold_checkpoints
from simrate.web.backend_protocol import Shown, WebBackend
from simrate.web.hub_backend import HubBackend


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
        self._pool.submit(hold_checkpoints, self.project).result()
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

    def _open_project(self) -> Project:
        if self.project is None:
            raise RuntimeError("the project file is not open")
        return self.project

    # the interface every backend gives the app (WebBackend, backend_protocol.py)
    @property
    def opened(self) -> bool:
        return self.project is not None

    @property
    def scale(self) -> Scale:
        return self._open_project().scale

    @property
    def title(self) -> str:
        return self._open_project().title

    async def start(self) -> None:
        """Nothing to start in the event loop: the file is opened by open()."""

    async def stop(self) -> None:
        """Nothing to stop in the event loop: the file is closed by close()."""

    def open_studies(self) -> list[str]:
        return [s.name for s in self._pool.submit(web.studies, self._open_project()).result()
                if s.open]

    async def study(self, name: str) -> web.Study | None:
        return await self.call(web.get_study, name)

    async def lease(self, name: str, worker: str, session: str, cookie: str | None,
                    address: str = "") -> web.Lease:
        return await self.call(web.lease, name, worker, session, cookie, address=address)

    async def task(self, name: str, cookie: str) -> tuple[web.Lease | None, web.Slot | None]:
        def both(project: Project):
            found = web.task_by_cookie(project, name, cookie)
            if found is None or found.state != "leased":
                return found, None
            return found, web.next_slot(project, found)

        return await self.call(both)

    async def slot(self, name: str, cookie: str, slot: int
                   ) -> tuple[web.Lease | None, web.Slot | None, float | None]:
        """The task the cookie names, its slot and the score saved for it (or None)."""
        def read(project: Project):
            found = web.task_by_cookie(project, name, cookie)
            viewed = None if found is None else web.slot_view(project, found, slot)
            return (found, None, None) if viewed is None else (found, *viewed)

        return await self.call(read)

    async def rate(self, name: str, cookie: str, token: str, slot: int, score: str
                   ) -> int | None:
        """Save (or correct) the slot's score; the task's next unrated slot (None: none)."""
        def write(project: Project):
            after, _ = web.rate_slot(project, name, cookie, token, slot, score)
            following = web.next_slot(project, after) if after.state == "leased" else None
            return None if following is None else following.slot

        return await self.call(write)

    async def rate_and_show(self, name: str, cookie: str, token: str, slot: int, score: str
                            ) -> Shown:
        """Save (or correct) the slot's score; the study, the task and its next unrated
        slot, read in the same turn of the database thread."""
        def write(project: Project) -> Shown:
            after, _ = web.rate_slot(project, name, cookie, token, slot, score)
            following = web.next_slot(project, after) if after.state == "leased" else None
            study = web.get_study(project, name)
            if study is None:  # rate_slot refuses a study that is gone
                raise web.WebRefusal("not found", 404)
            return Shown(study, after, following)

        return await self.call(write)

    async def failed_checks(self, name: str, cookie: str) -> int:
        """The failed attention checks of the task the cookie names (crowdweb/attention.py)."""
        from simrate.core.team.web_tasks import failed_checks

        return await self.call(failed_checks, name, cookie)

    async def practice(self, name: str, cookie: str, slot: int):
        """The practice pair `slot` of the task the cookie names (crowdweb/training.py)."""
        return await self.call(web.practice, name, cookie, slot)

    async def invitee(self, token: str) -> str | None:
        return await self.call(invitee_now, token)

    async def invite_next(self, name: str):
        return await self.call(invites.next_item, name)

    async def invite_rate(self, token: str, item_id: str, score: str) -> None:
        await self.call(rate_invited_now, token, item_id, score)


def backend_for(path: str | Path) -> WebBackend:
    """The backend for this project: the hub for an organizer's replica, else the file."""
    with Project.open(path) as project:
        replica = not project.mode.plain
    return HubBackend(path) if replica else FileBackend(path)


def invitee_now(project: Project, token: str) -> str | None:
    """The person a link names, with the project brought up to date first (the organizer
    may have added items or people since the server opened the file)."""
    project.refresh()
    return invites.invitee(project, token)


def rate_invited_now(project: Project, token: str, item_id: str, score: str) -> str:
    project.refresh()
    if not project.has_item(item_id):
        raise web.PageOutdated(invites.NOT_NOW)
    return invites.rate_invited(project, token, item_id, score)
