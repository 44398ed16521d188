"""A real PostgreSQL cluster for the hub tests, one per test session.

When the server binaries are missing the hub tests are skipped with the reason, except
under CI (the CI environment variable set), where a missing server is a failure.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from tests.hub.cluster import Cluster, server_bindir
from tests.hub.hubs import Hub

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def pg():
    """The running throwaway cluster (stopped and removed after the session)."""
    bindir = server_bindir()
    if bindir is None:
        reason = ("PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's "
                  "postgresql package (pg_config --bindir names their folder)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    cluster = Cluster(bindir)
    cluster.init()
    cluster.start()
    yield cluster
    cluster.remove()


@pytest.fixture
def hub(pg, tmp_path: Path, monkeypatch) -> Hub:
    """A fresh database owned by an organizer login that may create roles; passwords in a
    password file that libpq reads through PGPASSFILE (for this process and children)."""
    hub = Hub(pg, f"hub{next(_numbers)}", tmp_path)
    monkeypatch.setenv("PGPASSFILE", str(hub.passfile))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGUSER", raising=False)
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "0")  # tests of backoff set their own wait
    yield hub
    hub.drop()
