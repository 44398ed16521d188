"""The `serve` process's pool of hub connections, which hands out the connection put back
last, and the groups of calls that share one transaction on the hub (CallGroups, below).

psycopg's pool keeps its idle connections in a queue and hands out the oldest: every call
goes to the backend that has waited longest, so all of a server's connections take turns
and each backend's caches (catalog entries, the plans of the hub's functions) have gone
cold in the processor by the time its turn comes again. Handed out newest first, one or
two backends do the work of an ordinary load and stay warm; the others serve bursts.
Measured on one hub (1,000 web ratings and 100 task starts, one call at a time): 0.72-0.76
ms of PostgreSQL CPU a rating on one connection, 0.94-0.98 ms taking turns over 16.
"""

from __future__ import annotations

import asyncio
import json
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


#: SQLSTATEs of a call of a group given up for another's lock (a deadlock, a
#: serialization failure): nothing of it was written, and it goes again.
AGAIN = ("40P01", "40001")


class CallFailed(Exception):
    """A call of a group that the hub refused (its subtransaction undone): its SQLSTATE
    and the hub's text, read as a psycopg error's (hub/link/hub_errors.py)."""

    def __init__(self, sqlstate: str, message: str):
        super().__init__(message)
        self.sqlstate = sqlstate


def group_outcomes(answers: Any, count: int) -> list | None:
    """A group's answer (sync_rounds, web_rate_shows: a JSON array, one element a call) as
    its calls' outcomes: an element with "failed" a CallFailed, the others as they are;
    None when it does not hold one answer a call."""
    if isinstance(answers, str):
        answers = json.loads(answers)
    if not isinstance(answers, list) or len(answers) != count:
        return None
    return [CallFailed(str(a["failed"]), str(a.get("message") or ""))
            if isinstance(a, dict) and "failed" in a else a for a in answers]


class CallGroups:
    """Calls waiting to go to the hub together as one (on the server's event loop): the
    first to arrive waits at most `gather` seconds; the group goes then, or at once when it
    holds `most` calls or one says it must not wait. Several groups may be under way at a
    time, each on a pooled connection of its own. `send` takes a group's parameters and how
    long each waited here (seconds), and gives their outcomes in order: an answer, a
    CallFailed, or whatever the whole call met (an exception, a refusal); a group whose
    call raised gives that to each of its calls."""

    def __init__(self, send, gather: float, most: int):
        self.send = send
        self.gather, self.most = gather, most
        self._waiting: list[tuple[tuple, asyncio.Future, float]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task] = set()

    async def outcome(self, params: tuple, at_once: bool = False):
        """The call's outcome; one given up for another's lock (AGAIN) goes again, in a
        later group, three tries in all."""
        outcome = await self._once(params, at_once)
        for _again in range(2):
            if not (isinstance(outcome, CallFailed) and outcome.sqlstate in AGAIN):
                break
            outcome = await self._once(params, at_once)
        return outcome

    async def _once(self, params: tuple, at_once: bool):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append((params, future, loop.time()))
        if at_once or len(self._waiting) >= self.most:
            self._go()
        elif self._timer is None:
            self._timer = loop.call_later(self.gather, self._go)
        return await future

    def _go(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        group, self._waiting = self._waiting, []
        if group:
            task = asyncio.ensure_future(self._call(group))
            self._tasks.add(task)  # kept until done (the loop holds tasks weakly)
            task.add_done_callback(self._tasks.discard)

    async def _call(self, group: list[tuple[tuple, asyncio.Future, float]]) -> None:
        now = asyncio.get_running_loop().time()
        try:
            outcomes = await self.send([params for params, _, _ in group],
                                       [now - since for _, _, since in group])
        except Exception as exc:  # noqa: BLE001 - every round of the group meets it
            outcomes = [exc] * len(group)
        if len(outcomes) != len(group):  # never left waiting for an outcome
            outcomes = [RuntimeError("a group's outcomes did not match its rounds")] * len(group)
        for (_, future, _), outcome in zip(group, outcomes, strict=True):
            if not future.done():  # (its request may have been given up)
                future.set_result(outcome)
