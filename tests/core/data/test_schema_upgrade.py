"""A project file of schema 3 gains the column that import undo needs."""

from __future__ import annotations

import sqlite3

from simrate.core.data.store import SCHEMA_VERSION
from simrate.core.project import Project
from tests.support.helpers import new_project, run_cli
from tests.support.samples import held, ratings_file


def test_a_file_of_schema_3_gains_the_column(tmp_path):
    path = tmp_path / "old.simrate"
    new_project(path, n_items=2).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE r2 AS SELECT batch, item_ord, annotator_id, code, note, skipped, "
        "seconds, updated_at FROM import_replaced; DROP TABLE import_replaced; "
        "ALTER TABLE r2 RENAME TO import_replaced; "
        "UPDATE meta SET value = '3' WHERE key = 'schema_version';")
    conn.close()
    with Project.open(path) as project:
        assert project.meta("schema_version") == str(SCHEMA_VERSION)
        project.rate("x:1", "ann", 1.0)
    r1 = ratings_file(tmp_path / "r1.csv", [("x:1", "ann", 2)])
    assert run_cli("import", path, r1).returncode == 0
    assert run_cli("import", path, "--undo").returncode == 0
    assert held(path) == {("x:1", "ann"): 1.0}
