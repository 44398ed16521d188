"""The `serve` process's pool of hub connections, which hands out the connection put back
last (imported when a server on a hub replica starts).

psycopg's pool keeps its idle connections in a queue and hands out the oldest: every call
goes to the backend that has waited longest, so all of a server's connections take turns
and each backend's caches (catalog entries, the plans of the hub's functions) have gone
cold in the processor by the time its turn comes again. Handed out newest first, one or
two backends do the work of an ordinary load and stay warm; the others serve bursts.
Measured on one hub (1,000 web ratings and 100 task starts, one call at a time): 0.72-0.76
ms of PostgreSQL CPU a rating on one connection, 0.94-0.98 ms taking turns over 16.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool


class RecentFirstPool(AsyncConnectionPool[AsyncConnection[Any]]):
    """psycopg's AsyncConnectionPool, newest idle connection first. psycopg_pool (3.2 and
    later) takes a ready connection with `popleft()` from its deque of idle connections
    and puts connections back with `append()`; turning the deque by one first makes that
    the connection put back last. The pool's shrinking, which closes from the left, then
    closes the one idle longest. Should a later psycopg_pool keep its idle connections
    otherwise, the pool is psycopg's own, oldest first (tests/hub/test_web_hot_path.py
    says so)."""

    async def _get_ready_connection(self, timeout: float | None) -> Any:
        idle = getattr(self, "_pool", None)
        if isinstance(idle, deque) and len(idle) > 1:
            idle.rotate(1)
        return await super()._get_ready_connection(timeout)


#: Where the server says this connection reached it (NULL for both over a local socket).
SERVER_END = "SELECT host(inet_server_addr()), inet_server_port()"


async def prepare_when_direct(conn: AsyncConnection[Any]) -> None:
    """The pool's `configure`: a connection that reaches PostgreSQL itself keeps its
    statements prepared on the server from their first call (the hub then parses and
    plans `SELECT * FROM simrate.web_rate_show(...)` once per connection, not at every
    rating: 10-15% of a web rating's PostgreSQL CPU, measured one call at a time). A
    connection through a pooler in transaction mode (PgBouncer, which docs/crowd.md allows
    in front of the hub) must prepare nothing: the next transaction may run on another
    server connection. The pooler cannot be asked, so the test is the address: prepared
    only when the server's own end of the connection, address and port, is the one this
    client connected to. A pooler, a port mapping or a local socket makes them differ or
    unknown, and the connection then prepares nothing, as before."""
    cursor = await conn.execute(SERVER_END)
    row = await cursor.fetchone()
    address, port = row if row else (None, None)
    info = conn.info
    direct = port is not None and port == info.port and address == info.hostaddr
    conn.prepare_threshold = 0 if direct else None


def dropped(state: str) -> bool:
    """Whether an error's SQLSTATE says the connection itself is gone (none: closed under
    us; 57P01-57P03: the hub ended it, shut down, or is starting)."""
    return not state or state in ("57P01", "57P02", "57P03")


def may_go_again(exc: Exception) -> bool:
    """Whether a call that failed so may go again on a pooled connection, unchanged: a
    deadlock or a serialization failure (nothing of it was written), a stale prepared
    statement (nothing ran), or a connection the hub ended (the pool drops it; a rating
    sent again is 'again', a lease taken before the reply was lost answers 409, the task
    open). The pages and the sync service try each call three times at most."""
    state = getattr(exc, "sqlstate", "") or ""
    if state in ("40P01", "40001") or stale_statement(exc):
        return True
    return isinstance(exc, psycopg.OperationalError) and dropped(state)


def stale_statement(exc: Exception) -> bool:
    """A prepared statement the hub no longer runs: its function now returns other columns
    (the hub published again; SQLSTATE 0A000, "cached plan must not change result type")
    or the statement is gone (26000). The call goes again on a fresh connection."""
    state = getattr(exc, "sqlstate", "") or ""
    return state == "26000" or (state == "0A000" and "cached plan" in str(exc))


@asynccontextmanager
async def closed_when_stale(conn: AsyncConnection[Any]) -> AsyncIterator[None]:
    """Around one call on a pooled connection: when the call fails on a stale prepared
    statement, the connection is closed, so the pool takes it out and the call's next
    attempt runs on a fresh one (with none prepared)."""
    try:
        yield
    except Exception as exc:
        if stale_statement(exc):
            await conn.close()
        raise
