"""Background jobs: a function run on the thread pool, its result handed to the GUI thread.

A job never touches the window's Project: it gets plain data (a path, a copied array) and
opens its own connection when it needs the file, so no object is shared between threads;
when a job has written to the file, the window's `Project.refresh()` picks the change up.

Cancelling is cooperative: the function calls `job.check()` (or passes `job.progress` to
code that reports progress), which raises `JobCancelled` once Cancel was pressed. A
function that returns has finished, and its result is delivered even when Cancel came too
late to stop it: an export that has already replaced the file must say so. Work that must
not stop halfway calls `job.commit()` first; from then on `cancel()` is refused.

Jobs run on plain Python threads (`WorkerPool`), and their results travel through a
thread-safe queue that the runner drains on a short GUI-thread timer while jobs are out.
Qt's own machinery failed us twice here: queued signals from pool threads to Python slots
were now and then never delivered, and on a loaded machine QThreadPool now and then never
called a Python QRunnable's run() at all (PySide6 6.11; the job stayed pending for ever).
A queue and threads of our own have neither failure mode. The timer runs only while a job
is outstanding; the added latency is one tick (POLL_MS).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.errors import SimrateError

#: How often the GUI thread collects results while jobs are out, in milliseconds.
POLL_MS = 10


class JobCancelled(Exception):
    """Raised inside a job's function when the job was cancelled."""


class WorkerPool:
    """A few daemon threads that run jobs first come, first served.

    Threads start on demand, up to `size`, and then wait for work. `wait_for_done` is what
    a quitting application (or a test) calls so that no job is cut off halfway.
    """

    def __init__(self, size: int | None = None):
        self.size = size or max(2, os.cpu_count() or 2)
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._done = threading.Condition()
        self._outstanding = 0

    def start(self, job: Job) -> None:
        """Queue `job`; a free thread calls its run()."""
        with self._done:
            self._outstanding += 1
            if len(self._threads) < min(self.size, self._outstanding):
                thread = threading.Thread(target=self._work, name="simrate-job", daemon=True)
                thread.start()
                self._threads.append(thread)
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job.run()
            finally:
                with self._done:
                    self._outstanding -= 1
                    self._done.notify_all()

    @property
    def outstanding(self) -> int:
        """Jobs queued or running."""
        with self._done:
            return self._outstanding

    def wait_for_done(self, timeout: float | None = None) -> bool:
        """Block until no job is queued or running (True), or `timeout` seconds pass."""
        with self._done:
            return self._done.wait_for(lambda: self._outstanding == 0, timeout)


_GLOBAL_POOL: WorkerPool | None = None
_GLOBAL_LOCK = threading.Lock()


def global_pool() -> WorkerPool:
    """The application's one pool of worker threads."""
    global _GLOBAL_POOL
    with _GLOBAL_LOCK:
        if _GLOBAL_POOL is None:
            _GLOBAL_POOL = WorkerPool()
        return _GLOBAL_POOL


class Job:
    """Runs `function(job)` on a worker thread and posts what happened to `outbox`."""

    def __init__(self, function: Callable[[Job], Any], outbox: queue.SimpleQueue):
        self.function = function
        self.outbox = outbox
        self._cancel = threading.Event()
        self._lock = threading.Lock()  # makes cancel() and commit() exclusive
        self._committed = False

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._cancel.is_set()

    def cancel(self) -> bool:
        """Ask the function to stop at its next check; False once it has committed to
        finishing (see commit)."""
        with self._lock:
            if self._committed:
                return False
            self._cancel.set()
            return True

    def check(self) -> None:
        """Raise JobCancelled if the job was cancelled."""
        if self._cancel.is_set():
            raise JobCancelled()

    def commit(self) -> None:
        """Stop here if cancelled; otherwise refuse every later cancel: the job will finish."""
        with self._lock:
            self.check()
            self._committed = True

    def progress(self, done: int, total: int) -> None:
        """Report progress (and stop here if cancelled)."""
        self.check()
        self.outbox.put((self, "progress", (int(done), int(total))))

    def note(self, text: str) -> None:
        """Tell the GUI thread what the job is doing now (one line of text)."""
        self.outbox.put((self, "note", (text,)))

    def run(self) -> None:
        """Call the function; post its result, its error or the cancellation."""
        try:
            result = self.function(self)
        except JobCancelled:
            self.outbox.put((self, "cancelled", ()))
            return
        except SimrateError as exc:
            self.outbox.put((self, "failed", (exc,)))
            return
        except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message
            self.outbox.put((self, "failed", (SimrateError(f"{type(exc).__name__}: {exc}"),)))
            return
        self.outbox.put((self, "finished", (result,)))


class JobRunner(QObject):
    """Starts jobs on a thread pool and calls their callbacks in the GUI thread.

    Callbacks run from the runner's timer, so when the widget owning the runner is
    destroyed, the timer goes with it and a late result never reaches a deleted widget.
    """

    #: No job of this runner is running any more.
    idle = Signal()

    def __init__(self, pool: WorkerPool | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = pool or global_pool()
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._callbacks: dict[Job, dict[str, Callable | None]] = {}
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.collect)

    def start(self, function: Callable[[Job], Any],
              finished: Callable[[Any], None] | None = None,
              failed: Callable[[SimrateError], None] | None = None,
              cancelled: Callable[[], None] | None = None,
              progress: Callable[[int, int], None] | None = None,
              note: Callable[[str], None] | None = None) -> Job:
        """Run `function(job)` in the background; the callbacks run in the GUI thread."""
        job = Job(function, self._outbox)
        self._callbacks[job] = {"finished": finished, "failed": failed,
                                "cancelled": cancelled, "progress": progress, "note": note}
        self._timer.start()
        self.pool.start(job)
        return job

    def collect(self) -> None:
        """Deliver what finished jobs posted (called by the timer; tests may call it too)."""
        while True:
            try:
                job, kind, args = self._outbox.get_nowait()
            except queue.Empty:
                break
            self._deliver(job, kind, args)
        if not self._callbacks:
            self._timer.stop()

    def _deliver(self, job: Job, kind: str, args: tuple) -> None:
        if kind in ("progress", "note"):  # the job goes on
            callback = self._callbacks.get(job, {}).get(kind)
            if callback is not None:
                callback(*args)
            return
        callbacks = self._callbacks.pop(job, None)
        if callbacks is None:
            return
        try:
            callback = callbacks.get(kind)
            if callback is not None:
                callback(*args)
        finally:
            if not self._callbacks:
                self.idle.emit()

    @property
    def busy(self) -> bool:
        """True while a job is running."""
        return bool(self._callbacks)

    def cancel_all(self) -> None:
        """Ask every running job to stop."""
        for job in list(self._callbacks):
            job.cancel()
