"""HubSync: the window's continuous sync with its hub, with the network off the GUI thread.

The GUI thread owns the Project: it collects the outbox, and absorbs what came back (so
pulled ratings reach every view through the Project's own change notifications). A worker
thread owns the exchange connection and does nothing but push and pull. An organizer's
window also runs a listener thread that waits for the hub's NOTIFY; polling every few
seconds is the fallback, and catches up after a reconnect, when notifications sent in the
meantime are lost. An annotator's window holds no connection between rounds (session.py)
and looks for news less often. When the hub refuses (full, unreachable, ...) the next try
waits longer each time, with jitter (backoff.py); ratings made meanwhile do not bring it
forward, and the first round that succeeds starts the schedule over. Results travel back through a queue drained by a GUI-thread timer (as
in jobs.py), never through signals emitted from other threads.
"""

from __future__ import annotations

import queue
import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import Event
from simrate.core.project import Project
from simrate.hub.link.backoff import Backoff
from simrate.hub.link.client import session_for_service
from simrate.hub.link.connection import HubError
from simrate.hub.link.replica import acknowledged, last_sync, read_link, watermarks
from simrate.hub.link.session import HubSession
from simrate.hub.team.sync import LIVE_GAP, absorb, collect, tables_for

#: GUI-thread timer period, milliseconds: how soon results and notifications are handled.
TICK_MS = 40
#: Seconds after a local change before it goes out (a burst of keys makes one round).
DEBOUNCE = 0.15
#: Seconds between rounds when nothing happens (the fallback when NOTIFY is not heard).
POLL_SECONDS = 5.0
#: Seconds between an annotator's rounds when nothing happens: only new items and the
#: person's own edits from another machine come that way, and each round connects anew.
ANNOTATOR_POLL_SECONDS = 30.0
#: Seconds an annotator's window keeps its connection after a round (0: it lets go at once).
ANNOTATOR_LINGER = 0.0
#: Seconds between the worker's looks at an idle connection it may close.
IDLE_CHECK_SECONDS = 1.0
#: Seconds between recounts of the pending changes while the user rates.
COUNT_SECONDS = 1.0
#: Longest wait for the hub's notification before the listener looks at the stop flag again
#: (closing the window waits for the listener: it was a second).
LISTEN_SECONDS = 0.2



def _exchange_session(project: Project, link, uuid: str, password: str | None,
                      linger: float):
    """The session a window's rounds go over: direct (HubSession), or through the sync
    service of `simrate serve` for a replica joined by a sync link (hub/team/tokens.py, hub/link/client.py)."""
    if link.service:
        return session_for_service(project)
    return HubSession(link.url, link.replica, link.organizer, uuid, password,
                      linger=None if link.organizer else linger)

class HubSync(QObject):
    """Keeps one replica in sync; `status_changed` after every round or state change."""

    status_changed = Signal()
    #: The hub asked for a password libpq did not have (the window asks the user).
    password_needed = Signal()
    #: A round found edits of this machine that lost to later ones (how many).
    conflicts_found = Signal(int, list)  # how many, and the report's conflict list

    def __init__(self, project: Project, password: str | None = None,
                 poll_seconds: float | None = None, parent: QObject | None = None,
                 backoff: Backoff | None = None, linger: float = ANNOTATOR_LINGER):
        super().__init__(parent)
        self.project = project
        self.link = read_link(project)
        uuid = project.meta("project_uuid") or ""
        organizer = self.link.organizer
        self.session = _exchange_session(project, self.link, uuid, password, linger)
        self.listener = HubSession(self.link.url, self.link.replica, True, uuid, password) \
            if organizer else None
        if poll_seconds is None:
            poll_seconds = POLL_SECONDS if organizer else ANNOTATOR_POLL_SECONDS
        self.poll_seconds = poll_seconds
        #: the waits between tries while the hub refuses
        self.backoff = backoff or Backoff()
        #: the waits chosen after each refusal since the window opened (seconds)
        self.retry_delays: list[float] = []
        self._retry_at = 0.0  # monotonic time before which no round starts on its own
        self.online: bool | None = None  # None until the first round has answered
        self.error = ""
        self.error_kind = ""
        self.pending = collect(project, self.link).size
        self.last_sync: float | None = last_sync(project)
        self.rounds = 0
        self.conflicts = 0  # edits of this machine that lost, since the window opened
        self.clock_offset = 0.0  # seconds this machine's clock is ahead of the hub's
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self._notified = threading.Event()
        self._stop = threading.Event()
        self._in_flight, self._round_done_at = False, 0.0
        self._due: float | None = time.monotonic()  # a first round at once
        self._next_poll = time.monotonic() + poll_seconds
        self._absorbing = False
        self._pending_dirty = False
        self._counted_at = 0.0
        self._asked_password = False
        self._start()

    def _start(self) -> None:
        """The network threads (the rounds, and the organizer's listener), the project's
        events and the GUI thread's tick."""
        self._threads = [threading.Thread(target=self._work, daemon=True, name="hub-sync")]
        if self.listener is not None:
            self._threads.append(threading.Thread(target=self._listen, args=(self.listener,),
                                                  daemon=True, name="hub-listen"))
        for thread in self._threads:
            thread.start()
        self._unsubscribe = self.project.subscribe(self._on_change)
        self._timer = QTimer(self, interval=TICK_MS)
        self._timer.timeout.connect(self._on_tick)
        self._timer.start()

    # ------------------------------------------------------------------ GUI thread
    def _on_change(self, event: Event) -> None:
        if self._absorbing or self._stop.is_set():
            return
        self._pending_dirty = True
        if self._due is None:
            # while the hub refuses, a rating waits for the next try (no try per rating)
            self._due = max(time.monotonic() + DEBOUNCE, self._retry_at)

    def sync_now(self) -> None:
        """Start a round as soon as the current one (if any) is done."""
        self._due = time.monotonic()

    def set_password(self, password: str | None) -> None:
        """Use this password (kept in memory only) and try again."""
        self.session.password = password
        if self.listener is not None:
            self.listener.password = password
        self._asked_password = False
        self.sync_now()

    def _on_tick(self) -> None:
        while True:
            try:
                kind, outbox, payload = self._results.get_nowait()
            except queue.Empty:
                break
            self._in_flight = False
            self._round_done_at = time.monotonic()
            if kind == "ok":
                self._absorb(outbox, payload)
            else:
                self._went_offline(payload)
        now = time.monotonic()
        if self._notified.is_set():
            self._notified.clear()
            live = max(now, self._round_done_at + LIVE_GAP)  # a stream makes batches
            self._due = live if self._due is None else min(self._due, live)
        if now >= self._next_poll and self._due is None:
            self._due = max(now, self._retry_at)
        if self._pending_dirty and now - self._counted_at >= COUNT_SECONDS:
            self._count_pending()  # the count follows local changes, at most once a second
        if self._due is not None and now >= self._due and not self._in_flight:
            self._start_round()

    def _start_round(self) -> None:
        self._due = None
        self._pending_dirty = False
        try:
            outbox = collect(self.project, self.link)
        except SimrateError as exc:
            self._went_offline(exc)
            return
        self.pending = outbox.size
        self._in_flight = True
        self._requests.put((outbox, watermarks(self.project, tables_for(self.link))))
        self.status_changed.emit()

    def _absorb(self, outbox, received) -> None:
        self._absorbing = True
        try:
            report = absorb(self.project, self.link, outbox, received)
        except SimrateError as exc:
            self._went_offline(exc)
            return
        finally:
            self._absorbing = False
        self.rounds += 1
        self.online = True
        self.backoff.reset()
        self._retry_at = 0.0
        self.error = self.error_kind = ""
        self.pending = report.pending
        self.clock_offset = report.clock_offset
        self.last_sync = time.time()
        self._next_poll = time.monotonic() + self.poll_seconds
        if report.pending and self._due is None:
            self._due = time.monotonic()  # changes made during the round go out now
        self.status_changed.emit()
        if report.conflicts:
            self.conflicts += report.conflicts
            self.conflicts_found.emit(report.conflicts, list(report.conflict_list))

    def _went_offline(self, exc: SimrateError) -> None:
        self.online = False
        self.error = exc.message
        self.error_kind = getattr(exc, "kind", "error")
        delay = self.backoff.next_delay()
        self.retry_delays.append(delay)
        self._retry_at = time.monotonic() + delay
        self._next_poll = self._retry_at
        if self._due is not None:  # a change made during the failed round waits too
            self._due = max(self._due, self._retry_at)
        self._count_pending()
        if self.error_kind == "password" and not self._asked_password:
            self._asked_password = True
            self.password_needed.emit()
        self.status_changed.emit()

    def _count_pending(self) -> None:
        self._pending_dirty = False
        self._counted_at = time.monotonic()
        try:
            pending = collect(self.project, self.link).size
        except SimrateError:
            return
        if pending != self.pending:
            self.pending = pending
            self.status_changed.emit()

    @property
    def acknowledged(self) -> int:
        """The last local change-log id the hub has taken."""
        return acknowledged(self.project)

    def stop(self) -> None:
        """Stop the threads and close the connections (call before closing the project)."""
        self._timer.stop()
        self._unsubscribe()
        self._stop.set()
        self._requests.put(None)
        for thread in self._threads:
            thread.join(timeout=3.0)
        self.session.close()
        if self.listener is not None:
            self.listener.close()

    # ------------------------------------------------------------------ other threads
    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                request = self._requests.get(timeout=IDLE_CHECK_SECONDS)
            except queue.Empty:
                self.session.close_if_idle()  # an annotator's: no connection held idle
                continue
            if request is None:
                return
            outbox, marks = request
            try:
                self._results.put(("ok", outbox, self.session.round(outbox, marks)))
            except HubError as exc:
                self._results.put(("failed", outbox, exc))
            except Exception as exc:  # noqa: BLE001 - reported as one line in the window
                self._results.put(("failed", outbox, HubError(f"sync failed: {exc}")))

    def _listen(self, listener: HubSession) -> None:
        while not self._stop.is_set():
            if listener.wait(LISTEN_SECONDS):
                self._notified.set()
