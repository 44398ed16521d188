"""The short multi-process soak (60 s) of issues 22 and 31: the annotator's window, CLI
readers and a sync loop on her replica; the organizer's CLI writes, the web page and a
sync loop on the organizer's; kill -9 among them all (tests/hub/soak.py,
soak_organizer.py)."""

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
    side = result.organizer  # adjudications, exclusions, web ratings: every one acknowledged
    assert side.errors == [] and side.missing == []
    assert side.changes >= 10 and sum(side.web.values()) >= 20 and side.kills >= 2
