"""Rater keys with lookalikes across scripts on the plain file (issue 42): the key's
definition (core/base/lookalike.py), and a file keyed before it keyed again when opened."""

from __future__ import annotations

import sqlite3

from simrate.core.base.lookalike import FOLD_VERSION, fold, fold_table
from simrate.core.base.names import rater_key
from simrate.core.data import raters
from simrate.core.project import Project
from tests.contract.backends import frame_of
from tests.web.projects import make_project

CYRILLIC_COE = "\u0441\u043e\u0435"


def test_the_fold_maps_lookalikes_and_leaves_ascii_and_distinct_letters_alone():
    assert rater_key(CYRILLIC_COE) == rater_key("COE") == "coe"
    assert rater_key("\u0391\u0392\u0395") == rater_key("\u03b1\u03b2\u03b5") == "abe"
    assert rater_key("\u0399AN") == rater_key("ian")  # Greek capital iota: Latin I
    assert fold("\u00eb") == "\u00eb" and fold("\u5c71") == "\u5c71"  # no lookalike
    assert len({rater_key(n) for n in ("ill", "Ill", "lll", "1ll", "il1")}) == 4
    table = dict(fold_table())
    assert table["\u0441"] == "c" and table["\uff21"] == "a" and "a" not in table


def test_a_file_keyed_before_the_lookalikes_is_keyed_again_when_opened(tmp_path):
    """`coe` and Cyrillic `сое` were two raters of an older file: opened, the first keeps
    the key and the other its rows (found by its exact name); a new spelling finds `coe`."""
    path = make_project(tmp_path / "p.simrate")
    with Project.open(path) as project:
        project.import_ratings(frame_of(["coe"]), source="a.csv")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO annotators (name, key) VALUES (?, ?)",
                 (CYRILLIC_COE, CYRILLIC_COE))
    conn.execute("DELETE FROM meta WHERE key = ?", (raters.KEY_META,))
    conn.commit()
    conn.close()
    with Project.open(path) as project:
        assert project.meta(raters.KEY_META) == FOLD_VERSION
        assert project.roster.name_of("\u0421\u041e\u0415") == "coe"
        assert project.roster.name_of(CYRILLIC_COE) == CYRILLIC_COE  # its exact name
    conn = sqlite3.connect(path)
    keys = dict(conn.execute("SELECT name, key FROM annotators").fetchall())
    conn.close()
    assert keys["coe"] == "coe" and keys[CYRILLIC_COE] is None
