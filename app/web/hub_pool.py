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
from typing import Any

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
