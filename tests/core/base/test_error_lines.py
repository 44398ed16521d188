"""Error lines (core/base/errors.py): secrets are never echoed, and every error line is bounded
in length."""

from __future__ import annotations

from simrate.core.base.errors import ERROR_LINE_MAX, bounded_line, hide_secrets
from tests.cli.helpers import simrate


def _one_line(result, status=2):
    assert result.status == status, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("simrate: error: "), result.err
    assert "Traceback" not in result.err
    return result.err


def test_secrets_are_never_echoed(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "0")
    for url in ("postgres://u:pass word@h/db", "postgresql://bob:s3cret@[::1/db",
                "http://u:s3cret@127.0.0.1:9/team/" + "T" * 40):
        err = _one_line(simrate(capsys, "team", "join", url, tmp_path / "l.simrate"))
        assert "s3cret" not in err and "pass word" not in err, err
    assert hide_secrets("x password=zz y http://a/team/" + "t" * 30) == \
        "x password=*** y http://a/team/***"
    err = _one_line(simrate(capsys, "crowd", "study", tmp_path / "p.simrate", "s",
                            "--completion-url", "https://u:s3cret@example.org/done"))
    assert "s3cret" not in err


def test_error_lines_are_bounded(capsys, tmp_path):
    line = bounded_line("a" * 100_000 + " the way out")
    assert len(line) <= ERROR_LINE_MAX and line.endswith("the way out")
    err = _one_line(simrate(capsys, "info", tmp_path / ("x" * 50_000)))
    assert len(err) < ERROR_LINE_MAX + 40
