"""What keeps a flood of made-up workers from locking a web study.

A task that has no rating yet is cheap to ask for and costs the study a whole task, so:

- its lease is short (FIRST_RATING_MINUTES) until its first rating, then runs its
  full length; a task never rated leaves no row, no rater and no change-log entry behind;
- one client address (an IPv6 /64 counts as one) holds at most UNRATED_PER_ADDRESS of them
  (the address the reverse proxy on this machine forwards; a request from this machine
  without one has no limit per address);
- all addresses together hold at most UNRATED_SHARE of the study's tasks (at least
  UNRATED_LEAST); when that is reached, the oldest of them that has had EVICT_AFTER seconds
  to get its first rating is given up for the new one, and when none has, the start is
  refused (503) for a moment.

So a flood takes a bounded share of the pool, and only for minutes; a real worker who rates
a pair within EVICT_AFTER seconds keeps the task. What none of this stops (many addresses
and worker ids, patiently rating junk) is for the platform and the checks to catch; see
docs/crowd.md. The hub applies the same rules in its `web_lease` (hub/schema/web.py).
"""

from __future__ import annotations

import math
import sqlite3

from simrate.core.base.rules import MAX_ADDRESS_CHARS
from simrate.core.team.web_tables import Study, refusal

#: A new task's lease runs this long (at most) until its first rating, then its full length.
FIRST_RATING_MINUTES = 5.0
UNRATED_PER_ADDRESS = 5
UNRATED_SHARE = 0.5
UNRATED_LEAST = 10
EVICT_AFTER = 60.0


def make_room(conn: sqlite3.Connection, study: Study, address: str, now: float,
              drop) -> None:
    """Check the limits on tasks without a rating before a new one is leased from
    `address`; `drop(conn, study, task)` gives one up. WebRefusal 429 or 503 when full."""
    unrated = conn.execute(
        "SELECT t.task, t.address, t.leased_at FROM web_tasks t WHERE t.study = ? AND "
        "t.state = 'leased' AND NOT EXISTS (SELECT 1 FROM web_slots s WHERE s.study = t.study "
        "AND s.task = t.task AND s.rated_at IS NOT NULL) ORDER BY t.leased_at",
        (study.name,)).fetchall()
    if address and sum(1 for _t, a, _l in unrated if a == address) >= UNRATED_PER_ADDRESS:
        raise refusal("address_full")
    if len(unrated) < UNRATED_LEAST or len(unrated) < unrated_cap(conn, study, len(unrated)):
        return
    task, _address, leased_at = unrated[0]
    if leased_at > now - EVICT_AFTER:
        raise refusal("busy")
    drop(conn, study.name, task)


def unrated_cap(conn: sqlite3.Connection, study: Study, held: int) -> int:
    """The most tasks without a rating the study holds at once: a share of its tasks. The
    pool is counted only as far as needed to tell whether `held` is below the cap (a
    count of a pool of 200,000 pairs on every start would cost more than the lease)."""
    needed = math.ceil((held + 1) / UNRATED_SHARE * max(1, study.per_task) / study.per_item)
    checks = "AND item_ord NOT IN (SELECT item_ord FROM check_items)" \
        if _has_checks(conn) else ""
    pool = conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM web_fill WHERE study = ? "
                        f"{checks} LIMIT ?)", (study.name, needed + 1)).fetchone()[0]
    tasks = math.ceil(pool * study.per_item / max(1, study.per_task))
    return max(UNRATED_LEAST, math.ceil(tasks * UNRATED_SHARE))


def _has_checks(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'check_items'"
                        ).fetchone() is not None


def address_key(host: str) -> str:
    """The key of a client address for the limits: an IPv6 address by its /64 (one
    subscriber's block), anything else as given; '' (no limit per address) for this
    machine itself, which is a reverse proxy that sent no X-Forwarded-For, or a test."""
    import ipaddress

    try:
        parsed = ipaddress.ip_address(host)
    except ValueError:
        return host[:MAX_ADDRESS_CHARS]
    if parsed.is_loopback or (parsed.version == 6 and parsed.ipv4_mapped is not None
                              and parsed.ipv4_mapped.is_loopback):
        return ""
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)
