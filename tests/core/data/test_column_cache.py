"""The columns the agreement model is built from are read once and are never stale."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from simrate.core.project import Project
from tests.core.frames import make_rated_project


def fresh(project: Project) -> tuple:
    """What an uncached read gives now."""
    project.column_cache.clear()
    return project.scope_columns()


def same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3], strict=True)) and \
        a[3:] == b[3:]


@pytest.fixture
def project(tmp_path):
    with Project.open(make_rated_project(tmp_path / "a.simrate")) as p:
        yield p


def test_one_read_serves_every_part_while_nothing_changes(project):
    first = project.scope_columns()
    assert project.scope_columns() is first  # kept, not read again
    project.agreement.flags, project.agreement.live  # noqa: B018 - built from the kept read
    assert project.scope_columns() is first


def test_our_own_write_is_seen_at_once(project):
    before = project.scope_columns()
    project.rate("d:1", "ann", 0.0 if project.rating_state("d:1", "ann").code else 4.0)
    after = project.scope_columns()
    assert after is not before and same(after, fresh(project))


def test_a_change_of_one_code_by_another_process_is_seen(project):
    """Same row count, same ids: only the value moves; data_version still tells."""
    before = project.scope_columns()
    conn = sqlite3.connect(project.path)
    conn.execute("UPDATE ratings SET code = CASE WHEN code = 0 THEN 1 ELSE 0 END "
                 "WHERE (item_ord, annotator_id) = (SELECT item_ord, annotator_id FROM ratings "
                 "WHERE code IS NOT NULL ORDER BY item_ord, annotator_id LIMIT 1)")
    conn.commit()
    conn.close()
    after = project.scope_columns()
    assert not same(after, before) and same(after, fresh(project))


def test_the_model_lets_the_arrays_go_once_built(project):
    project.scope_columns()
    project.agreement.flags, project.agreement.live, project.agreement.scopes  # noqa: B018
    assert project.column_cache._value is None
