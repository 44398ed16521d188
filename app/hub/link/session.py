"""HubSession: one replica's connections to its hub, for round after round.

The exchange connection is opened on first use and dropped after any failure, so the next
round reconnects. An annotator's session holds no idle connection: it lets go of it after
each round, or once it has been idle for `linger` seconds (`close_if_idle`), so hundreds
of annotators' windows take a server slot only while they push or pull. An organizer's
session keeps its connection (organizers are few, and see agreement live). Organizers also keep a listening connection: `wait` returns when the hub
sends NOTIFY or the timeout passes. After a reconnect the session LISTENs again, and the
caller pulls everything above its watermarks anyway (notifications sent while we were away
are lost), so nothing depends on a notification arriving. Besides the plain channel (items
and settings), a login listens on its own secret channel (hub/schema/tables.py): nobody hears of
writes they may not read.
"""

from __future__ import annotations

import time
from typing import Any

from simrate.hub.link.backoff import Backoff
from simrate.hub.link.connection import HubError, connect, explain, hub_info
from simrate.hub.link.exchange import Outbox, Received, exchange
from simrate.hub.schema import CHANNEL, quote_ident


def my_channels(conn: Any) -> list[str]:
    """The secret channel on which the hub announces the writes this login may read: all
    of them for an organizer, an annotator's own ratings for an annotator."""
    found = conn.execute("SELECT simrate.my_channel()").fetchone()[0]
    return [found] if found else []


class HubSession:
    """Connections to one hub for one replica (used from one thread at a time)."""

    def __init__(self, url: str, replica: str, organizer: bool, project_uuid: str,
                 password: str | None = None, linger: float | None = None):
        self.url = url
        self.replica = replica
        self.organizer = organizer
        self.project_uuid = project_uuid
        self.password = password
        self._conn: Any = None
        self._listener: Any = None
        self.connected = False
        #: seconds an idle exchange connection is kept; None: for good (an organizer's)
        self.linger = linger if linger is not None or organizer else 0.0
        self._last_used = 0.0
        #: the waits between the listener's reconnects while the hub refuses
        self.listen_backoff = Backoff()
        self._listen_retry_at = 0.0

    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            conn = connect(self.url, self.password)
            try:
                info = hub_info(conn, self.url)
                if info.project_uuid != self.project_uuid:
                    raise HubError("the hub holds another project than this file", "project")
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def round(self, outbox: Outbox, marks: dict[str, int]) -> Received:
        """Push and pull once; HubError (and a dropped connection) when that fails."""
        try:
            received = exchange(self._connection(), self.replica, outbox, marks,
                                self.organizer, self.url)
        except HubError:
            self.drop()
            raise
        except Exception as exc:  # a broken connection can surface as another error
            self.drop()
            raise explain(exc, self.url) from None
        self.connected = True
        self._last_used = time.monotonic()
        if self.linger is not None and self.linger <= 0:
            self._close_connection()
        return received

    def close_if_idle(self) -> bool:
        """Close the exchange connection when it has been idle `linger` seconds (never for
        a session without a linger); True when it was closed."""
        if self._conn is None or self.linger is None:
            return False
        if time.monotonic() - self._last_used < self.linger:
            return False
        self._close_connection()
        return True

    def _close_connection(self) -> None:
        """Let go of the exchange connection; the hub stays counted as reachable."""
        _close_quietly(self._conn)
        self._conn = None

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds for a NOTIFY from the hub; True if one came.

        Without a listening connection (or when it breaks) it sleeps the timeout away and
        returns False: polling is the fallback. Right after (re)connecting it returns True:
        what was sent while nobody listened must be pulled now. A refused reconnect is
        tried again after a backoff (backoff.py), not at every call.
        """
        if time.monotonic() < self._listen_retry_at:
            time.sleep(timeout)
            return False
        try:
            fresh = self._listener is None or self._listener.closed
            listener = self._listen()
            if fresh:
                return True
            got = False
            for _note in listener.notifies(timeout=timeout, stop_after=1):
                got = True
            return got
        except Exception:  # noqa: BLE001 - any failure means: reconnect and poll meanwhile
            self._drop_listener()
            self._listen_retry_at = time.monotonic() + self.listen_backoff.next_delay()
            time.sleep(timeout)
            return False

    def _listen(self) -> Any:
        if self._listener is None or self._listener.closed:
            listener = connect(self.url, self.password)
            listener.execute(f"LISTEN {CHANNEL}")  # items and settings
            for channel in my_channels(listener):
                listener.execute(f"LISTEN {quote_ident(channel)}")
            self._listener = listener
            self.listen_backoff.reset()
        return self._listener

    def _drop_listener(self) -> None:
        _close_quietly(self._listener)
        self._listener = None

    def drop(self) -> None:
        """Forget the exchange connection (the next round reconnects)."""
        self.connected = False
        self._close_connection()

    def close(self) -> None:
        """Close every connection."""
        self.drop()
        self._drop_listener()


def _close_quietly(conn: Any) -> None:
    """Close a hub connection if there is one; closing a broken connection may fail too."""
    if conn is not None:
        try:
            conn.close()
        except Exception:  # noqa: BLE001 - nothing to do about it: it is gone either way
            pass
