"""Tampered packages: only what the project issued merges, and only values it could write."""

from __future__ import annotations

import sqlite3

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.package_merge import merge_package
from simrate.core.team.packages import make_package
from tests.support.helpers import new_project


def tamper(path, *statements: tuple) -> None:
    """Change a package file behind the app's back."""
    conn = sqlite3.connect(str(path))
    for sql, *args in statements:
        conn.execute(sql, args)
    conn.commit()
    conn.close()


@pytest.fixture
def returned(tmp_path):
    """(origin project, a package for 'ann' rated on every item)."""
    origin = new_project(tmp_path / "origin.simrate", 5)
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    with Project.open(out) as package:
        for item_id in package.item_ids():
            package.rate(item_id, "ann", 2.0, note="fine", seconds=3.0)
    yield origin, out
    origin.close()


def _unchanged(origin: Project) -> None:
    fresh = Project.open(origin.path)
    assert fresh.annotators() == [] and len(fresh.ratings()) == 0


def test_renamed_annotator_is_refused(returned):
    origin, out = returned
    tamper(out, ("UPDATE meta SET value = 'mallory' WHERE key = 'package_annotator'",),
           ("UPDATE annotators SET name = 'mallory'",))
    with pytest.raises(SimrateError, match="issued to 'ann' but names 'mallory'"):
        merge_package(origin, out)
    _unchanged(origin)


def test_package_with_an_id_never_issued_is_refused(returned, tmp_path):
    origin, out = returned
    tamper(out, ("UPDATE meta SET value = 'forged-id' WHERE key = 'project_uuid'",))
    with pytest.raises(SimrateError, match="not one this project issued"):
        merge_package(origin, out)
    _unchanged(origin)


def test_package_with_more_items_than_issued_is_refused(returned):
    origin, out = returned
    tamper(out, ("INSERT INTO items (ord, id, left, right) VALUES (99, 'x:1b', 'l', 'r')",))
    with pytest.raises(SimrateError, match="holds 6 items but was issued with 5"):
        merge_package(origin, out)


@pytest.mark.parametrize(("column", "value", "message"), [
    ("skipped", 7, "skipped = 7, not 0 or 1"),
    ("skipped", "yes", "skipped = 'yes', not 0 or 1"),
    ("seconds", -1e308, "seconds = -1e+308, not between 0"),
    ("seconds", float("inf"), "seconds = inf, not a finite number"),
    ("seconds", "abc", "seconds = 'abc', not a finite number"),
    ("note", "n" * 5_000_000, "a note of 5,000,000 characters (at most 1,000,000)"),
    ("note", b"\x00\x01", "a note that is not text"),
    ("code", 2.5, "is off the scale"),
    ("code", -1, "is off the scale"),
])
def test_values_out_of_type_or_range_are_refused(returned, column, value, message):
    origin, out = returned
    tamper(out, (f"UPDATE ratings SET {column} = ? WHERE item_ord = 2", value))
    with pytest.raises(SimrateError) as caught:
        merge_package(origin, out)
    assert message in str(caught.value) and "'x:3'" in str(caught.value)
    assert len(str(caught.value)) < 300  # a hostile value is never printed whole
    _unchanged(origin)


def test_untampered_package_still_merges(returned):
    origin, out = returned
    report = merge_package(origin, out)
    assert report.added == 5
    assert Project.open(origin.path).rating("x:3", "ann") == 2.0
