"""`simrate [PROJECT]`: what is wrong with the arguments is said before any window opens."""

from __future__ import annotations

from tests.cli.helpers import simrate


def test_a_missing_project_is_named_even_without_a_display(capsys, tmp_path, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    result = simrate(capsys, tmp_path / "nosuch.simrate")
    assert result.status != 0
    assert result.err.strip() == f"simrate: error: {tmp_path / 'nosuch.simrate'}: no such project file"


