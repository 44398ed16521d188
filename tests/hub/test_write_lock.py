"""No client's pause holds up another writer of the hub.

Writes to the hub take their stamps without a lock (hub/schema/tables.py): no writer waits
for another one, and a client paused in the middle of its round, while the server waits
for its next statement, must neither hold an advisory lock nor keep a second writer
waiting, however long it is not scheduled (hundreds of windows on a busy machine).

These tests pause the client each time it gets an answer from the server, which is every
moment at which its own slowness could keep the server waiting, and meanwhile check from
other connections that nothing is held: a second writer's write goes through at once.
The connection is a real one; it only stops to let the check run.
"""

from __future__ import annotations

import psycopg
import pytest

from simrate.hub.link.exchange import exchange
from simrate.hub.link.replica import read_link, watermarks
from simrate.hub.team.sync import absorb, collect, tables_for
from tests.hub.hubs import join_as, team

#: How long the second writer waits for a lock before it counts as held (seconds).
PATIENCE = "300ms"


class PausingConnection(psycopg.Connection):
    """A connection that stops after every answer from the server and runs `pause`."""

    pause = None

    def wait(self, gen, *args, **kwargs):
        result = super().wait(gen, *args, **kwargs)
        if self.pause is not None:
            self.pause(self)
        return result


class SecondWriter:
    """What another writer finds while the client is paused: whether the paused client's
    session holds an advisory lock, and whether a write of its own got its stamp in time."""

    def __init__(self, hub):
        self.admin = hub.admin()
        self.pauses = 0
        self.held: list[str] = []

    def __call__(self, client: PausingConnection) -> None:
        self.pauses += 1
        holds = self.admin.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND pid = %s", (client.info.backend_pid,)).fetchone()[0]
        try:
            with self.admin.transaction(force_rollback=True):
                self.admin.execute(f"SET LOCAL lock_timeout = '{PATIENCE}'")
                self.admin.execute(  # a stamped write, undone afterwards
                    "INSERT INTO simrate.ratings (item_id, annotator, code, updated_at) "
                    "VALUES ('d:12', 'Somebody else', 3, 0)")
        except psycopg.errors.LockNotAvailable:
            self.held.append(f"pause {self.pauses}: the second writer waited in vain")
        if holds:
            self.held.append(f"pause {self.pauses}: the paused client held an advisory lock")

    def close(self) -> None:
        self.admin.close()


def paused_round(hub, project) -> tuple[SecondWriter, object]:
    """One round of `project` (collect, exchange, absorb) over a pausing connection."""
    link = read_link(project)
    outbox = collect(project, link)
    assert outbox.size > 0
    writer = SecondWriter(hub)
    conn = PausingConnection.connect(link.url, autocommit=True, prepare_threshold=None)
    try:
        conn.pause = writer
        received = exchange(conn, link.replica, outbox, watermarks(project, tables_for(link)),
                            link.organizer, link.url)
        conn.pause = None
    finally:
        conn.close()
        writer.close()
    return writer, absorb(project, link, outbox, received)


@pytest.fixture
def people(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    yield organizer, alice
    alice.close()
    organizer.close()


def test_an_annotators_push_never_keeps_another_writer_waiting_while_the_client_pauses(hub, people):
    _organizer, alice = people
    for k, score in ((1, 2.0), (2, 4.5), (3, 1.0)):
        alice.rate(f"d:{k}", "Alice", score, note="first" if k == 1 else "")
    with hub.admin() as admin:
        before = admin.execute("SELECT max(seq) FROM simrate.changes").fetchone()[0]
    writer, report = paused_round(hub, alice)
    assert writer.pauses >= 2  # the client did stop between messages
    assert writer.held == []
    assert (report.pushed, report.pending) == (3, 0)
    with hub.admin() as admin:
        # no write was left behind with a number below every watermark
        assert admin.execute("SELECT count(*) FROM simrate.ratings WHERE seq <= 0"
                             ).fetchone()[0] == 0
        assert admin.execute("SELECT kind, item_id FROM simrate.changes WHERE seq > %s "
                             "ORDER BY seq", (before,)).fetchall() == [
            ("ratings", "d:1"), ("ratings", "d:2"), ("ratings", "d:3")]
        assert admin.execute("SELECT item_id, code, note FROM simrate.ratings "
                             "WHERE annotator = 'Alice' ORDER BY item_id").fetchall() == [
            ("d:1", 8, "first"), ("d:2", 18, ""), ("d:3", 4, "")]


def test_an_organizers_push_never_keeps_another_writer_waiting_while_the_client_pauses(
        hub, people, tmp_path):
    """Items, adjudications, exclusions, the threshold, a machine rater and ratings: every
    kind of row an organizer's replica sends, in one push."""
    from tests.core.frames import make_items

    organizer, _alice = people
    extra = make_items(14).iloc[12:].copy()
    organizer.import_items(extra, source="more")
    organizer.rate("d:13", "Olga", 3.0)
    organizer.adjudicate("d:2", 2.5, note="settled", by="Olga")
    organizer.rate("d:13", "Bob", 1.0)
    organizer.set_excluded("Bob", True, by="Olga")
    organizer.set_threshold(organizer.threshold + 0.5)
    organizer.roster.add_machine("gpt-judge", by="Olga")
    writer, report = paused_round(hub, organizer)
    assert writer.pauses >= 2
    assert writer.held == []
    assert report.pending == 0
    with hub.admin() as admin:
        assert admin.execute("SELECT count(*) FROM simrate.items").fetchone()[0] == 14
        assert admin.execute("SELECT code, note FROM simrate.adjudications "
                             "WHERE item_id = 'd:2'").fetchone() == (10, "settled")
        assert admin.execute("SELECT excluded FROM simrate.annotators WHERE name = 'Bob'"
                             ).fetchone() == (True,)
        assert admin.execute("SELECT kind FROM simrate.annotators WHERE name = 'gpt-judge'"
                             ).fetchone() == ("machine",)
        assert admin.execute("SELECT code FROM simrate.ratings WHERE item_id = 'd:13' "
                             "AND annotator = 'Olga'").fetchone() == (12,)


def test_a_push_is_on_the_servers_disk_before_the_replica_hears_it_went_through(
        hub, people):
    """The push's COMMIT does not wait for the disk (so that the replica's row is not held
    over a flush); the round still answers only once the push is on disk. The server's log writer
    is made slow, and the server crashes right after the round: the ratings are there when
    it comes back, and the replica rightly holds nothing pending."""
    from simrate.hub.team.sync import pending_count, sync_once

    _organizer, alice = people
    cluster = hub.cluster
    cluster.sql("ALTER SYSTEM SET wal_writer_delay = '10s'")
    cluster.sql("SELECT pg_reload_conf()")
    try:
        alice.rate("d:5", "Alice", 3.5)
        alice.rate("d:6", "Alice", 0.5)
        report = sync_once(alice)
        assert (report.pushed, report.pending) == (2, 0)
        cluster.stop("immediate")  # a crash: what was not written out is gone
        cluster.start()
        with hub.admin() as admin:
            assert admin.execute("SELECT item_id, code FROM simrate.ratings WHERE annotator "
                                 "= 'Alice' ORDER BY item_id").fetchall() == [("d:5", 14),
                                                                             ("d:6", 2)]
        assert pending_count(alice) == 0
    finally:
        if not cluster.running():
            cluster.start()
        cluster.sql("ALTER SYSTEM RESET wal_writer_delay")
        cluster.sql("SELECT pg_reload_conf()")
