"""Shared fixtures: offscreen Qt, the real-data folder, small projects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DATA = ROOT / "sample_data"
REALDATA = ROOT.parent / "shared" / "realdata"


@pytest.fixture
def sample_data() -> Path:
    """The folder of our own small sample files."""
    return SAMPLE_DATA


@pytest.fixture
def realdata() -> Path:
    """../shared/realdata; tests using it must also carry @pytest.mark.realdata."""
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not present")
    return REALDATA
