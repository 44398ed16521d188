"""The hub keeps every stored score on the published scale, whoever writes it (issue 42):
an annotator's own login and her sync link, an organizer's login; a hub published before
this is brought up to the rule by publishing again, after its off-scale rows are reported;
a replica that pulls such rows from an older hub keeps them out and is not damaged.

Real PostgreSQL (tests/hub/cluster.py: skipped without it, failed under CI) and a real
`simrate serve` process.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid

import httpx
import psycopg
import pytest

from simrate.core.base import rules
from simrate.core.project import Project
from simrate.hub.link.connection import HubError
from simrate.hub.schema.scale_sql import CODE_TABLES, constraint_name, scale_statements, table_rules
from simrate.hub.team.sync import sync_once
from tests.hub.hubs import team
from tests.hub.servicehub import join_through, service_team
from tests.web.servers import Server

RATING = ("INSERT INTO simrate.ratings (item_id, annotator, code, skipped, updated_at) "
          "VALUES (%s, %s, %s, %s, %s)")
RERATE = ("UPDATE simrate.ratings SET code = %s, skipped = %s, updated_at = %s "
          "WHERE item_id = %s AND annotator = %s")
VERDICT = "INSERT INTO simrate.adjudications (item_id, code, by, at) VALUES (%s, %s, '', %s)"
#: What an older hub lacked: the triggers and constraints of stored scores.
OLDER_HUB = [f"DROP TRIGGER check_scale ON simrate.{t}" for t in CODE_TABLES] + [
    f"ALTER TABLE simrate.{t} DROP CONSTRAINT {constraint_name(t, r)}"
    for t in CODE_TABLES for r in table_rules(t)]


def bad_values(scale) -> list[tuple[int, bool]]:
    """(code, skipped) of each kind of refused rating."""
    return [(999, False), (-1, False), (scale.max_code + 1, False), (2, True)]


def said(scale, code, skipped, table="ratings") -> str:
    return rules.code_problem(code, skipped, scale.max_code, scale.describe(), table)


def refused_line(exc: psycopg.Error) -> str:
    text = exc.diag.message_primary or ""
    assert exc.sqlstate == "SR400" and "\n" not in text, (exc.sqlstate, text)
    return text


def hub_rows(hub, sql: str) -> list[tuple]:
    with hub.admin() as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def crew(hub, tmp_path):
    """ann (annotator) and olga (organizer) with logins: (scale, {name: login}, path)."""
    organizer, logins = team(hub, tmp_path, {"ann": "annotator", "olga": "organizer"})
    scale, path = organizer.scale, organizer.path
    organizer.close()
    return scale, logins, path


def test_the_rules_of_stored_scores_are_rendered_into_the_hubs_sql():
    text = "\n".join(scale_statements(5, "sts (0-5, step 1)"))
    for rule in rules.CODE_RULES:
        message = rule.message.replace("{high}", "5").replace("{scale}", "sts (0-5, step 1)")
        assert message.replace("'", "''") in text
        for table in rule.tables:
            assert f"CONSTRAINT {table}_{rule.name}" in text
    assert rules.code_problem(5, False, 5, "s") is None
    assert rules.code_problem(None, True, 5, "s") is None
    assert rules.code_problem(True, False, 5, "s") is not None  # a bool is no code


@pytest.mark.parametrize("who", ["ann", "olga"])
def test_a_direct_login_is_refused_off_scale_codes_in_one_line(hub, crew, who):
    scale, logins, _path = crew
    now = time.time()
    with hub.connect_as(logins[who], f"pw-{logins[who]}") as conn:
        conn.execute(RATING, ("d:2", "ann", 1, False, now))  # on the scale: taken
        for code, skipped in bad_values(scale):
            for sql, params in ((RATING, ("d:1", "ann", code, skipped, now)),
                                (RERATE, (code, skipped, now + 5, "d:2", "ann"))):
                with pytest.raises(psycopg.Error) as refused:
                    conn.execute(sql, params)
                assert refused_line(refused.value) == said(scale, code, skipped)
        if who == "olga":
            conn.execute(VERDICT, ("d:3", scale.max_code, now))
            with pytest.raises(psycopg.Error) as refused:
                conn.execute(VERDICT, ("d:4", 999, now))
            assert refused_line(refused.value) == said(scale, 999, False, "adjudications")
    assert hub_rows(hub, "SELECT item_id, annotator, code, skipped FROM simrate.ratings") == \
        [("d:2", "ann", 1, False)]
    assert hub_rows(hub, "SELECT item_id, code FROM simrate.adjudications") == \
        ([("d:3", scale.max_code)] if who == "olga" else [])


def test_an_annotators_sync_link_is_refused_off_scale_codes_in_one_line(hub, tmp_path):
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator"})
    with Project.open(path) as organizer:
        scale = organizer.scale
    with Server(path) as server:
        def round_(code, skipped):
            body = {"replica": str(uuid.uuid4()), "upto": 0, "marks": {}, "ratings": [
                {"item_id": "d:1", "code": code, "note": "", "skipped": skipped,
                 "seconds": None, "updated_at": time.time()}]}
            return httpx.post(server.url + "/sync/round", json=body, timeout=20,
                              headers={"Authorization": f"Bearer {tokens['Alice']}"})
        for code, skipped in bad_values(scale):
            answer = round_(code, skipped)
            assert answer.status_code == 400, answer.text
            error = answer.json()["error"]
            assert "\n" not in error and error.endswith(said(scale, code, skipped)), error
        assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings") == [(0,)]
        assert round_(scale.max_code, False).status_code == 200
        assert hub_rows(hub, "SELECT code FROM simrate.ratings") == [(scale.max_code,)]
        # a replica whose file was changed by hand: the round is refused in one line
        alice = join_through(server, tokens["Alice"], tmp_path / "alice.simrate")
        alice.rate("d:2", "Alice", 1.0)
        with sqlite3.connect(alice.path) as raw:
            raw.execute("UPDATE ratings SET code = 999")
        with pytest.raises(HubError) as refused:
            sync_once(alice)
        assert refused.value.message.endswith(said(scale, 999, False))
        alice.close()
        server.stop()
    assert hub_rows(hub, "SELECT item_id, code FROM simrate.ratings") == [("d:1", scale.max_code)]


def _older_hub_with_bad_rows(hub) -> None:
    """Make the hub as an older simrate left it, with rows it let in: ann's code 999 on
    d:2, ann's d:3 both skipped and scored, a verdict of 88 on d:4; bob's 3 on d:2."""
    now = time.time()
    with hub.admin() as conn:
        for statement in OLDER_HUB:
            conn.execute(statement)
        conn.execute(RATING, ("d:1", "ann", 2, False, now))
        conn.execute(RATING, ("d:1", "bob", 4, False, now))
        conn.execute(RATING, ("d:2", "bob", 3, False, now))
        conn.execute(RATING, ("d:2", "ann", 999, False, now))
        conn.execute(RATING, ("d:3", "ann", 1, True, now))
        conn.execute(VERDICT, ("d:4", 88, now))


def test_publishing_an_older_hub_again_reports_its_bad_rows_then_the_rule_holds(hub, crew):
    scale, logins, path = crew
    _older_hub_with_bad_rows(hub)
    done = hub.simrate("team", "publish", path, hub.url())
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    head = next(n for n, line in enumerate(lines) if "score(s) written before" in line)
    assert "the hub holds 3 score(s)" in lines[head]
    assert lines[head + 1:head + 4] == ["  d:2 rated by ann: code 999",
                                        "  d:3 rated by ann: code 1, marked skipped",
                                        "  the verdict on d:4: code 88"]
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings WHERE code = 999") == [(1,)]
    valid = "SELECT conname, convalidated FROM pg_constraint WHERE conname LIKE '%_on_scale'"
    assert sorted(hub_rows(hub, valid)) == [("adjudications_on_scale", False),
                                            ("ratings_on_scale", False)]
    with hub.connect_as(logins["ann"], f"pw-{logins['ann']}") as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(RATING, ("d:5", "ann", 999, False, time.time()))
        assert refused_line(refused.value) == said(scale, 999, False)
    with hub.admin() as conn:  # an organizer clears them by rating and adjudicating again
        conn.execute(RERATE, (1, False, time.time() + 1, "d:2", "ann"))
        conn.execute(RERATE, (None, True, time.time() + 1, "d:3", "ann"))
        conn.execute("UPDATE simrate.adjudications SET code = 2, at = %s WHERE item_id = 'd:4'",
                     (time.time() + 1,))
        with pytest.raises(psycopg.errors.CheckViolation):  # the floor under the trigger
            conn.execute("SET session_replication_role = replica")
            conn.execute(RATING, ("d:6", "ann", 999, False, time.time()))
    done = hub.simrate("team", "publish", path, hub.url())
    assert done.returncode == 0 and "score(s) written before" not in done.stdout
    assert sorted(hub_rows(hub, valid)) == [("adjudications_on_scale", True),
                                            ("ratings_on_scale", True)]


def test_a_replica_keeps_an_older_hubs_off_scale_rows_out_and_is_not_damaged(hub, crew):
    scale, _logins, path = crew
    score = scale.from_code
    _older_hub_with_bad_rows(hub)
    done = hub.simrate("team", "sync", path, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kept_out"] == 3  # counted in the JSON too
    warnings = [line for line in done.stderr.splitlines() if "off the scale" in line]
    assert len(warnings) == 1 and warnings[0].startswith("simrate: warning: 3 score(s)")
    with Project.open(path) as organizer:
        ratings = organizer.ratings()
        assert sorted(zip(ratings["item_id"], ratings["annotator"], ratings["score"],
                          strict=True)) == [("d:1", "ann", score(2)), ("d:1", "bob", score(4)),
                                            ("d:2", "bob", score(3))]
    gold = json.loads(hub.simrate("gold", path, "--json").stdout)["items"]
    assert {g["item_id"]: g["gold"] for g in gold if g["item_id"] in ("d:1", "d:2")} == \
        {"d:1": score(3), "d:2": score(3)}
    assert all(g["gold"] is None or 0 <= g["gold"] <= scale.high for g in gold)
    checked = hub.simrate("check", path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no damage found" in checked.stdout
    assert "3 off-scale values from the hub, kept out" in checked.stdout
    with hub.admin() as conn:  # the hub's row made right: the replica takes it
        conn.execute(RERATE, (1, False, time.time() + 1, "d:2", "ann"))
    with Project.open(path) as organizer:
        sync_once(organizer)
        assert organizer.rating("d:2", "ann") == score(1)
    checked = hub.simrate("check", path)
    assert "2 off-scale values from the hub, kept out" in checked.stdout
