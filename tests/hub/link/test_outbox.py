"""The replica's outbox (app/hub/link/outbox.py) on a real project file, no hub needed.

An undo's writes are marked in the outbox in the undo's own transaction, although the core
never writes the outbox: it notes where the undo began (`undo_marks`) and the adapter's
trigger marks the rows after it. An edit that is no undo leaves its rows unmarked. A replica
made before the marks (no `undo_marks`, no trigger) gets both the next time its tables are
ensured, and its undos are marked from then on.
"""

from __future__ import annotations

import pytest

from simrate.core.actions import History, SetRating
from simrate.core.base.events import RatingState
from simrate.hub.link.replica import ensure_tables
from tests.support.helpers import new_project


@pytest.fixture
def replica(tmp_path):
    project = new_project(tmp_path / "r.simrate")
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
    yield project
    project.close()


def score(project, value: float) -> RatingState:
    return RatingState(project.scale.to_code(value))


def outbox(project) -> list[tuple]:
    return project.team_tables.read(
        "SELECT kind, item_id, annotator, undo FROM hub_outbox WHERE kind = 'rating' ORDER BY id")


def test_an_undo_marks_its_rows_and_a_plain_edit_does_not(replica):
    history = History(replica)
    history.run(SetRating("x:1", "ann", score(replica, 2.0)))
    history.run(SetRating("x:1", "ann", score(replica, 3.0)))
    assert [row[3] for row in outbox(replica)][-2:] == [0, 0]
    history.undo()
    rows = outbox(replica)
    assert rows[-1] == ("rating", "x:1", "ann", 1)
    assert [row[3] for row in rows[:-1]] == [0] * (len(rows) - 1)
    assert replica.rating("x:1", "ann") == 2.0


def test_a_replica_made_before_the_marks_gets_them(replica):
    with replica.team_tables.transaction() as conn:
        conn.execute("DROP TRIGGER hub_outbox_undo")
        conn.execute("DROP TABLE undo_marks")
    history = History(replica)
    history.run(SetRating("x:1", "ann", score(replica, 2.0)))
    history.undo()  # no marks yet: the file does not take them
    assert outbox(replica)[-1][3] == 0
    with replica.team_tables.transaction() as conn:
        ensure_tables(conn)
    history.run(SetRating("x:1", "ann", score(replica, 3.0)))
    history.undo()
    assert outbox(replica)[-1] == ("rating", "x:1", "ann", 1)
