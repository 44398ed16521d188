"""100 replicas syncing at once through `simrate serve` on a server of 20 connections
(issue 33): every round goes through, the service holds no more server connections than
its pool, and an organizer still connects meanwhile.

A throwaway cluster of its own (max_connections 20, 3 of them for superusers).
"""

from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from simrate.core.project import Project
from simrate.hub.link.connection import connect, hub_info
from simrate.hub.team.sync import sync_once
from simrate.hub.team.web_hub import WEB_LOGIN_KEY
from simrate.web.hub_backend import HubBackend
from tests.hub.cluster import Cluster, server_bindir
from tests.hub.hubs import Hub
from tests.hub.servicehub import join_through, service_team
from tests.web.servers import Server

PEOPLE, MACHINES = 20, 5  # 100 replicas


@pytest.fixture
def small_hub(tmp_path, monkeypatch):
    bindir = server_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not found")
    cluster = Cluster(bindir, max_connections=20, reserved=3)
    cluster.init()
    cluster.start()
    hub = Hub(cluster, "small", tmp_path)
    monkeypatch.setenv("PGPASSFILE", str(hub.passfile))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "0")
    yield hub
    cluster.remove()


class Peak:
    """The most server connections of one login seen while it runs (sampled)."""

    def __init__(self, hub: Hub, login: str):
        self.hub, self.login, self.most = hub, login, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        with self.hub.admin() as conn:
            while not self.stop.is_set():
                now = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s",
                                   (self.login,)).fetchone()[0]
                self.most = max(self.most, now)
                time.sleep(0.005)


def replica_round(server, token: str, path, item: str, name: str, start: threading.Barrier):
    """Join, wait for the others, rate one item and sync; the round's report."""
    project = join_through(server, token, path)
    try:
        start.wait(timeout=300)
        project.rate(item, name, 3.0)
        return sync_once(project)
    finally:
        project.close()


def test_100_replicas_at_once_take_at_most_the_pool_and_an_organizer_connects(
        small_hub, tmp_path):
    people = {f"P{n}": "annotator" for n in range(PEOPLE)}
    path, _logins, tokens = service_team(small_hub, tmp_path, people)
    with Project.open(path) as organizer:
        login = organizer.meta(WEB_LOGIN_KEY)
    pool = HubBackend(path).max_size
    jobs = [(name, machine) for name, machine in itertools.product(people, range(MACHINES))]
    start = threading.Barrier(len(jobs) + 1)
    with Server(path) as server:
        peak = Peak(small_hub, login)
        peak.thread.start()
        with ThreadPoolExecutor(max_workers=len(jobs)) as workers:
            futures = [workers.submit(replica_round, server, tokens[name],
                                      tmp_path / f"{name}-{machine}.simrate",
                                      f"d:{machine + 1}", name, start)
                       for name, machine in jobs]
            start.wait(timeout=300)
            conn = connect(small_hub.url())  # the organizer, direct, during the burst
            assert hub_info(conn).kind == "organizer"
            conn.close()
            reports = [f.result(timeout=300) for f in futures]
        peak.stop.set()
        peak.thread.join()
        server.stop()
    assert [r.pushed for r in reports] == [1] * len(jobs)
    assert all(r.pending == 0 and r.hub == "reachable" for r in reports)
    assert 1 <= peak.most <= pool
    with small_hub.admin() as conn:
        assert conn.execute("SELECT count(*) FROM simrate.ratings").fetchone()[0] == len(jobs)
