"""Stored numbers are ASCII digits: a threshold, the schema version and a package's format
written with other digits count as damage, not as numbers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.team.package_file import read_package
from simrate.core.team.packages import make_package
from tests.support.helpers import new_project, one_line_error, run_cli


# ---------------------------------------------------------------- numbers kept in a file
def set_meta(path: Path, key: str, value: str, sql: str = "") -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    if sql:
        conn.execute(sql)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("given", ["１.５", "1_0"])
def test_a_stored_threshold_in_other_digits_is_damage(tmp_path, given):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    set_meta(path, "threshold", given)
    result = run_cli("info", path)
    assert result.returncode == 2
    one_line_error(result.stderr, "damaged project", f"threshold is {given!r}")


def test_check_reads_a_schema_version_in_other_digits(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    set_meta(path, "schema_version", "²", "ALTER TABLE annotators DROP COLUMN kind")
    result = run_cli("check", path)
    assert result.returncode == 2
    assert "schema_version is '²', not a whole number" in result.stdout
    assert "table annotators has no column kind" in result.stdout
    one_line_error(result.stderr, "damaged project")


def test_a_package_format_in_other_digits_is_unreadable(tmp_path):
    origin = new_project(tmp_path / "p.simrate")
    package = tmp_path / "ann.simrate"
    make_package(origin, package, "ann")
    origin.close()
    set_meta(package, "package_format", "１")
    with pytest.raises(SimrateError, match="unreadable package format '１'"):
        read_package(package)
