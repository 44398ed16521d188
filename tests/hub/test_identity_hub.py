"""One rater identity where the hub and a replica disagree for a while (issue 31): the hub
decides by itself, and a replica that lags is refused with one line, never mixed up.
The cases that hold alike on the file and the hub are in tests/contract/test_identity.py."""

from __future__ import annotations

import psycopg
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import rater_key
from simrate.core.project import Project
from simrate.hub.team.people import add_person, remove_person
from simrate.hub.team.sync import sync_once
from tests.contract.backends import frame_of
from tests.hub.webhub import published_study

NFC_ZOE, NFD_ZOE = "Zo\u00eb", "Zoe\u0308"


def lease(hub, worker: str) -> str:
    """A web worker starts a task and rates its first pair, which makes the worker a rater
    of the hub (a start alone holds no name: issue 32); the task's worker name."""
    with hub.admin() as conn:
        name, cookie, token = conn.execute(
            "SELECT worker, cookie, token FROM simrate.web_lease('s', %s, '', '', '')",
            (worker,)).fetchone()
        conn.execute("SELECT simrate.web_rate('s', %s, %s, 1, 4)", (cookie, token))
        return name


def hub_kinds(hub) -> dict[str, str]:
    with hub.admin() as conn:
        return dict(conn.execute("SELECT name, kind FROM simrate.annotators").fetchall())


def test_a_worker_who_came_before_the_sync_keeps_his_name_and_the_person_is_refused(
        hub, tmp_path):
    """Case 1 with the replica behind: `carol` is imported into the organizer's file after
    publishing, and before its sync a web worker `carol` starts a task. The sync is refused
    with one line naming the crowd worker; no answer of the worker becomes the person's."""
    path, _ = published_study(hub, tmp_path, items=20, per_task=2, n_checks=0, annotator=None)
    with Project.open(path) as project:
        project.import_ratings(frame_of(["carol"]), source="late.csv")
        assert lease(hub, "carol") == "carol"
        with pytest.raises(SimrateError, match="'carol' is a crowd worker") as caught:
            sync_once(project)
        assert "\n" not in str(caught.value)
        assert project.roster.kinds()["carol"] == "human"
        assert sorted(project.ratings().query("annotator == 'carol'")["item_id"]) == \
            ["i001", "i002"]
    assert hub_kinds(hub)["carol"] == "crowd"
    with hub.admin() as conn:  # the person's two never went in: only the worker's own one
        assert conn.execute("SELECT count(*) FROM simrate.ratings WHERE annotator = 'carol'"
                            ).fetchone()[0] == 1


def test_the_hub_itself_refuses_a_second_spelling_and_a_kind_change(hub, tmp_path):
    """Clients that do not ask first meet the hub's own rules: a unique key across kinds and
    scripts, computed by the hub, `claim_rater` never changes a kind."""
    published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    assert lease(hub, "W1") == "W1"
    with hub.connect_as(hub.organizer, "org-secret") as conn:
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO simrate.annotators (name, kind) VALUES ('w1', 'human')")
        # the hub keys names that are not ASCII itself (its fold table, lookalikes across
        # scripts included), whatever key the client says
        conn.execute("INSERT INTO simrate.annotators (name, key) VALUES ('J\u00fcrgen', 'x')")
        assert conn.execute("SELECT key FROM simrate.annotators WHERE name = 'J\u00fcrgen'"
                            ).fetchone() == (rater_key("J\u00fcrgen"),)
        with pytest.raises(psycopg.errors.UniqueViolation):  # Cyrillic Ј, Latin ürgen
            conn.execute("INSERT INTO simrate.annotators (name) VALUES ('\u0408\u00fcrgen')")
        with pytest.raises(psycopg.Error, match="'W1' is a crowd worker"):
            conn.execute("SELECT simrate.claim_rater('w1', NULL, 'machine')")
        assert conn.execute("SELECT simrate.claim_rater(%s, %s, 'human')",
                            (NFC_ZOE, rater_key(NFC_ZOE))).fetchone() == (NFC_ZOE,)
        assert conn.execute("SELECT simrate.claim_rater(%s, %s, 'human')",
                            (NFC_ZOE.upper(), rater_key(NFC_ZOE))).fetchone() == (NFC_ZOE,)
    kinds = hub_kinds(hub)
    assert kinds["W1"] == "crowd" and kinds[NFC_ZOE] == "human" and "w1" not in kinds


def test_team_add_and_remove_typed_in_nfd_are_the_one_person(hub, tmp_path):
    """Cases 9 and 10 on the hub: `team add` in NFD, then in NFC, is one person with one
    login; `team remove` in NFD takes that login's access away for real."""
    path, _ = published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    with Project.open(path) as project:
        login, _url = add_person(project, NFD_ZOE, "annotator", "her-pw")
        # her password again: asked for (a password of an existing person needs reset)
        again, _url = add_person(project, NFC_ZOE.upper(), "annotator", "her-pw", reset=True)
        assert again == login
        hub.remember(login, "her-pw")
        with hub.admin() as conn:
            assert conn.execute("SELECT annotator FROM simrate.people").fetchall() == [
                (NFC_ZOE,)]
        with hub.connect_as(login, "her-pw") as conn:
            assert conn.execute("SELECT simrate.my_name()").fetchone() == (NFC_ZOE,)
        assert remove_person(project, NFD_ZOE) == login
    with pytest.raises(psycopg.OperationalError):
        hub.connect_as(login, "her-pw").close()


@pytest.mark.parametrize("how", ["ratings", "machine"])
def test_an_import_on_the_organizers_replica_claims_its_raters_on_the_hub_first(
        hub, tmp_path, how):
    """Cases 1 and 4 while the hub can be reached: the import asks the hub before it
    writes, so a worker who took the name there meanwhile refuses it at once, in one line,
    and the file stays as it was."""
    from tests.support.helpers import one_line_error

    path, _ = published_study(hub, tmp_path, items=20, per_task=2, n_checks=0, annotator=None)
    assert lease(hub, "carol") == "carol"
    if how == "ratings":
        source = tmp_path / "late.csv"
        source.write_text("item_id,annotator,score\ni001,Carol,2\ni002,ann,3\n",
                          encoding="utf-8")
        args = ["import", path, source]
    else:
        source = tmp_path / "scores.tsv"
        source.write_text("item_id\tscore\ni001\t2\n", encoding="utf-8")
        args = ["import", path, source, "--machine", "CAROL"]
    done = hub.simrate(*args)
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "'carol' is a crowd worker", "(on the hub)")
    with Project.open(path) as project:
        assert project.annotators() == ["alice"]
    assert hub_kinds(hub)["carol"] == "crowd"
    fresh = tmp_path / "fresh.csv"  # a name nobody holds: claimed, then synced as usual
    fresh.write_text("item_id,annotator,score\ni003,dan,1\n", encoding="utf-8")
    assert hub.simrate("import", path, fresh).returncode == 0
    assert hub_kinds(hub)["dan"] == "human"
    with pytest.raises(psycopg.Error, match="the name of a human annotator"):
        lease(hub, "DAN")


def test_publishing_again_gives_an_older_hubs_raters_their_keys(hub, tmp_path):
    """A hub made before the identity rule: publishing again keys its raters (the first of
    two spellings keeps the key, names that are not ASCII get theirs from the publisher)
    and gives every person a rater row; then the rule holds there too."""
    from simrate.hub.team.publish import publish

    path, _ = published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    with hub.admin() as conn:
        conn.execute("DROP TRIGGER keep_key ON simrate.annotators")
        conn.execute("DROP INDEX simrate.annotators_key")
        conn.execute("ALTER TABLE simrate.annotators DROP COLUMN key")
        for name in ("Bob", "BOB", NFC_ZOE):
            conn.execute("INSERT INTO simrate.annotators (name) VALUES (%s)", (name,))
        conn.execute("INSERT INTO simrate.people (login, annotator, kind) "
                     "VALUES ('old_p', 'Olga', 'annotator')")
    with Project.open(path) as project:
        publish(project, hub.url())
    with hub.admin() as conn:
        keys = dict(conn.execute("SELECT name, key FROM simrate.annotators").fetchall())
    assert keys["Bob"] == "bob" and keys["BOB"] is None
    assert keys[NFC_ZOE] == rater_key(NFC_ZOE) and keys["Olga"] == "olga"
    with pytest.raises(psycopg.Error, match="the name of a human annotator"):
        lease(hub, "olga")
