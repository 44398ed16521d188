"""`simrate serve` on a hub replica whose hub sits behind PgBouncer in transaction mode
(docs/crowd.md allows it): the server's connections prepare nothing on the server, since
the next transaction may run on another server connection, and every rating arrives.
Connected directly, the same server prepares its calls (test_web_hot_path.py)."""

from __future__ import annotations

import asyncio

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tests.hub.test_pgbouncer import start_bouncer
from tests.hub.webhub import published_study


def test_serve_through_a_pooler_prepares_nothing_and_every_rating_arrives(hub, tmp_path):
    from simrate.web.hub_backend import HubBackend

    path, _ = published_study(hub, tmp_path, items=40, checks=0, per_task=4, n_checks=0,
                              per_item=1, annotator=None)
    bouncer = start_bouncer(hub, pool_size=1)  # one server connection for both of serve's
    bouncer.remember(hub.passfile)
    backend = HubBackend(path, min_size=2, max_size=2)
    backend.open()
    assert int(conninfo_to_dict(backend.url)["port"]) == hub.cluster.port
    backend.url = make_conninfo(backend.url, port=str(bouncer.port))

    async def worker(name: str) -> int:
        lease = await backend.lease("s", name, "", None)
        for slot in range(1, 5):
            await backend.rate_and_show("s", lease.cookie, lease.token, slot, "2")
        return lease.size

    async def run() -> tuple[list[int], list[int | None]]:
        await backend.start()
        try:
            sizes = await asyncio.gather(*(worker(f"W{n}") for n in range(6)))
            held = [await backend.pool.getconn() for _ in range(2)]
            thresholds = [conn.prepare_threshold for conn in held]
            for conn in held:
                await backend.pool.putconn(conn)
            return list(sizes), thresholds
        finally:
            await backend.stop()

    try:
        sizes, thresholds = asyncio.run(run())
    finally:
        bouncer.remove()
    assert sizes == [4] * 6
    assert thresholds == [None, None]
    with hub.admin() as admin:
        stored = admin.execute("SELECT count(*) FROM simrate.ratings WHERE annotator LIKE 'W%'"
                               ).fetchone()[0]
    assert stored == 24
