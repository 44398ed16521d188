"""One rater identity on the plain file (issue 31): the name rules, the identity key, ids
never reused (schema 5, also for files made before it), browser links of a name typed in
NFD, and every command-line option that names a rater."""

from __future__ import annotations

import re
import sqlite3

import pytest
from starlette.testclient import TestClient

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import MAX_RATER_CHARS, check_rater_name, rater_key, rater_name_problem
from simrate.core.data.store import SCHEMA_VERSION
from simrate.core.project import Project
from simrate.core.team.invites import invite, invitee, revoke
from simrate.web.pages import create_app
from tests.cli.helpers import simrate
from tests.contract.backends import frame_of
from tests.support.helpers import one_line_error, run_cli
from tests.web.projects import make_project

NFC_ZOE, NFD_ZOE = "Zo\u00eb", "Zoe\u0308"


@pytest.mark.parametrize(("name", "needle"), [
    ("ana\u3164", "U+3164"), ("\u115fana", "U+115F"), ("a\u2800", "U+2800"),
    ("a\u034fb", "U+034F"), ("a\u17b4b", "U+17B4"), ("a\u200bb", "U+200B"),
    ("a\u200db", "U+200D"), ("a\u2066b", "U+2066"), ("a\u2029b", "U+2029"),
    ("bell\x07", "U+0007"), ("esc\x1b", "U+001B"), ("\u0430na", "mixes scripts"),
    ("J\u043ehn Smith", "mixes scripts"), ("x" * (MAX_RATER_CHARS + 1), "more than 64"),
    ("", "empty"), (" \t", "empty")])
def test_names_refused_say_why_in_one_line(name, needle):
    problem = rater_name_problem(name)
    assert problem is not None and needle in problem and "\n" not in problem
    with pytest.raises(SimrateError, match=re.escape(needle)):
        check_rater_name(name)


@pytest.mark.parametrize("name", ["ana", "Zo\u00eb", "\u0410\u043d\u043d\u0430 Smith",
                                  "\u5c71\u7530\u306f\u306a\u3053", "O'Brien-Smith",
                                  "\u039d\u03af\u03ba\u03bf\u03c2", "x" * MAX_RATER_CHARS])
def test_names_of_real_people_pass(name):
    assert check_rater_name(f" {name} ") == name


def test_the_identity_key_folds_case_width_and_form():
    assert {rater_key(n) for n in ("ana", "ANA", "Ana", "\uff41\uff4e\uff41")} == {"ana"}
    assert rater_key(NFD_ZOE) == rater_key(NFC_ZOE.upper()) == rater_key(NFC_ZOE)
    assert rater_key("Stra\u00dfe") == rater_key("STRASSE")
    # a lookalike of another script is the Latin letter it looks like (and a word mixing
    # scripts is refused anyway)
    assert rater_key("ana") == rater_key("\u0430na")
    assert rater_key("coe") == rater_key("\u0441\u043e\u0435")  # Cyrillic сое
    assert rater_key("ABE") == rater_key("\u0391\u0392\u0395") == rater_key("abe")  # Greek
    assert rater_key("Ill") != rater_key("lll") != rater_key("1ll")  # ASCII never mapped


def test_ids_are_never_reused_after_an_undo(tmp_path):
    path = make_project(tmp_path / "p.simrate")
    with Project.open(path) as project:
        project.import_ratings(frame_of(["carl"]), source="carl.csv")
        carl = project.roster.id_of("carl")
        project.undo_import()
        assert "carl" not in project.roster
        project.import_ratings(frame_of(["dora"]), source="dora.csv")
        assert project.roster.id_of("dora") > carl
        project.rate("i003", "carl", 1.0)  # carl again: a new rater, a new id
        assert project.roster.id_of("carl") > project.roster.id_of("dora")


def test_a_file_of_schema_4_gets_keys_and_keeps_its_twins(tmp_path):
    """Names equal under the key written before this rule stay two raters, each found by
    its exact name; a new spelling goes to the first; ids go on above the highest."""
    path = make_project(tmp_path / "p.simrate")
    with Project.open(path) as project:
        project.rate("i002", "bob", 3.0)
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER annotators_top; DROP INDEX annotators_key;"
        "ALTER TABLE annotators DROP COLUMN key; DELETE FROM meta WHERE key = 'annotator_top';"
        "INSERT INTO annotators (id, name) VALUES (7, 'ANA'), (8, 'ana');"
        "UPDATE meta SET value = '4' WHERE key = 'schema_version';")
    conn.close()
    with Project.open(path) as project:
        assert project.meta("schema_version") == str(SCHEMA_VERSION)
        project.rate("i001", "ANA", 1.0)
        project.rate("i001", "ana", 2.0)
        project.rate("i002", "\uff21\uff2e\uff21", 4.0)  # a new spelling: the first of them
        assert project.rating("i001", "ANA") == 1.0 and project.rating("i001", "ana") == 2.0
        assert project.rating("i002", "ANA") == 4.0
        project.rate("i003", "eve", 1.0)
        assert project.roster.id_of("eve") == 9
        assert sorted(project.annotators()) == ["ANA", "alice", "ana", "bob", "eve"]


def test_a_link_made_in_nfd_lets_her_rate_and_a_removal_in_nfd_ends_it(tmp_path, capsys):
    """Cases 9 and 10: `Zoë` in NFD is the NFC Zoë for her link, and `team remove` typed
    in NFD revokes the link for real (the page stops answering)."""
    path = make_project(tmp_path / "p.simrate", items=4, checks=0)
    with Project.open(path) as project:
        token = invite(project, NFD_ZOE)
        assert invitee(project, token) == NFC_ZOE
        assert project.annotators().count(NFC_ZOE) == 1
        assert invite(project, NFC_ZOE.upper()) and project.annotators().count(NFC_ZOE) == 1
    with TestClient(create_app(path), raise_server_exceptions=False) as client:
        assert client.get(f"/invite/{token}").status_code == 200
        removed = simrate(capsys, "team", "remove", path, NFD_ZOE)
        assert removed.status == 0, removed.err
        assert "2 browser link(s) revoked" in removed.out
        assert client.get(f"/invite/{token}").status_code in (403, 404, 410)
    with Project.open(path) as project:
        assert invitee(project, token) is None
        assert revoke(project, NFC_ZOE) == 0


@pytest.mark.parametrize("args", [
    ["import", "{p}", "{scores}", "--annotator", "{bad}"],
    ["import", "{p}", "{scores}", "--machine", "{bad}"],
    ["import", "{p}", "{scores}", "--annotator", "ann", "--by", "{bad}"],
    ["annotators", "{p}", "--exclude", "{bad}"],
    ["assign", "{p}", "ann", "{bad}", "--per-item", "1"],
    ["package", "{p}", "{out}", "--annotator", "{bad}"],
    ["team", "invite", "{p}", "{bad}"],
    ["adjudicate", "{p}", "i001", "2", "--by", "{bad}"],
])
@pytest.mark.parametrize("bad", ["ana\u3164", "\u0430na", "a\u200bb"])
def test_every_option_naming_a_rater_refuses_a_bad_name(tmp_path, args, bad):
    path = make_project(tmp_path / "p.simrate")
    scores = tmp_path / "scores.csv"
    scores.write_text("item_id,score\ni001,1\n", encoding="utf-8")
    values = {"p": path, "scores": scores, "out": tmp_path / "k.simrate", "bad": bad}
    result = run_cli(*[a.format(**values) for a in args])
    assert result.returncode == 2, result.stderr
    line = one_line_error(result.stderr)
    assert "mixes scripts" in line or re.search(r"U\+[0-9A-F]{4}", line), line
    with Project.open(path) as project:
        assert project.annotators() == ["alice"]


def test_a_name_option_in_nfd_or_upper_case_finds_the_rater(tmp_path):
    path = make_project(tmp_path / "p.simrate")
    scores = tmp_path / "scores.csv"
    scores.write_text("item_id,score\ni001,1\ni002,3\n", encoding="utf-8")
    assert run_cli("import", path, scores, "--annotator", NFD_ZOE).returncode == 0
    assert run_cli("import", path, scores, "--annotator", "ALICE").returncode == 0
    refused = run_cli("import", path, scores, "--machine", "ZO\u00cb")
    assert refused.returncode == 2
    one_line_error(refused.stderr, "human annotator")
    with Project.open(path) as project:
        assert project.annotators() == ["alice", NFC_ZOE]
        assert project.rating("i002", "alice") == 3.0


def test_undoing_a_machine_import_takes_the_new_machine_rater_back(tmp_path):
    """A machine rater comes with its first import, so an undo (say, after the hub refused
    its name) leaves no machine behind to be claimed again."""
    from simrate.services.imports.machine_import import import_machine

    path = make_project(tmp_path / "p.simrate")
    scores = tmp_path / "bot.tsv"
    scores.write_text("item_id\tscore\ni001\t2\ni002\t3\n", encoding="utf-8")
    with Project.open(path) as project:
        import_machine(project, scores, "bot")
        assert project.roster.machines() == ["bot"]
        done = project.undo_import()
        assert done["annotators_removed"] == 1 and "bot" not in project.roster
        import_machine(project, scores, "BOT")  # a new one, under the name given now
        import_machine(project, scores, "bot")  # the same machine again: nothing new
        assert project.roster.machines() == ["BOT"]
