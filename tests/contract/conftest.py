"""The contract suite: one set of cases run against the plain file and against the hub
(a real PostgreSQL cluster, tests/hub/conftest.py; skipped without one, failed under CI)."""

from __future__ import annotations

import pytest

from tests.contract.backends import FileBackend, HubBackend
from tests.hub.conftest import hub, pg  # noqa: F401  (the hub's fixtures, for the hub side)


@pytest.fixture(params=["file", "hub"])
def backend(request, tmp_path):
    """The project as the cases see it: a plain file, or an organizer's replica of a hub
    whose own rules (PL/pgSQL, unique keys) are checked after every sync."""
    if request.param == "file":
        side = FileBackend(tmp_path)
    else:
        side = HubBackend(request.getfixturevalue("hub"), tmp_path)
    yield side
    side.close()
