"""The short multi-process soak (60 s) of issue 22: see tests/hub/soak.py."""

from __future__ import annotations

import os

from tests.hub.soak import run_soak

SECONDS = float(os.environ.get("SIMRATE_SOAK_SECONDS", "60"))


def test_window_readers_and_syncs_killed_at_random_lose_nothing_acknowledged(hub, tmp_path):
    result = run_soak(hub, tmp_path, SECONDS, seed=22)
    assert result.deleted_seen == [], "a process of ours deleted the window's WAL"
    assert len(result.acknowledged) >= 50, "the window acknowledged too few ratings to judge"
    assert result.window_kills >= 2 and result.sync_kills >= 1 and result.reads >= 10
    assert result.errors == []
    assert result.missing_on_hub == []
    assert result.missing_at_organizer == []
