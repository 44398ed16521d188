"""One rater identity, the same on the plain file and on the hub (issue 31): names are NFC,
names equal under NFKC and case folding are one rater, invisible characters and words
mixing scripts are refused, people, crowd workers and machine raters share one namespace
(a name another kind holds is refused with one line naming that kind, by the hub itself
on the hub), and an id is never given to a second rater."""

from __future__ import annotations

import unicodedata

import pytest

from simrate.core.data.store import CROWD, HUMAN
from simrate.core.project import Project
from tests.contract.backends import ITEMS, Refused, frame_of

NFC_ZOE, NFD_ZOE = "Zo\u00eb", "Zoe\u0308"


def refused(action, *words: str) -> str:
    """The one line of a refusal, which must hold each of `words`."""
    with pytest.raises(Refused) as caught:
        action()
    line = str(caught.value)
    for word in words:
        assert word in line, line
    return line


def one_of_key(raters: dict[str, str], name: str) -> list[str]:
    key = unicodedata.normalize("NFKC", name).casefold()
    return [n for n in raters if unicodedata.normalize("NFKC", n).casefold() == key]


# ------------------------------------------------------------------ names refused
@pytest.mark.parametrize("name", [
    "ana\u3164", "a\u115fna", "\u2800", "a\u034fna", "an\u17b4a", "a\u200bna", "a\u200dna",
    "a\u202ena", "a\u2028na", "a\nna", "a\rna", "a\x07na", "a\x1bna", "\u0430na",
    "x" * 65, "   "])
def test_names_that_cannot_be_seen_or_mix_scripts_are_refused_everywhere(backend, name):
    before = backend.raters()
    refused(lambda: backend.add_person(name))
    refused(lambda: backend.import_ratings([name]))
    refused(lambda: backend.rate(ITEMS[0], name, 1.0))
    refused(lambda: backend.import_machine(name))
    assert backend.raters() == before  # nothing written anywhere


# ------------------------------------------------------------------ one rater per key
def test_case_width_and_form_variants_find_the_one_rater(backend):
    assert backend.add_person("ana") == "ana"
    assert backend.add_person("ANA") == "ana"  # the same person, never a second row
    backend.rate(ITEMS[0], "ANA", 1.0)
    backend.rate(ITEMS[1], "\uff41\uff4e\uff41", 2.0)  # fullwidth ａｎａ
    backend.import_ratings(["Ana"], items=[ITEMS[2]])
    raters = backend.raters()
    assert one_of_key(raters, "ana") == ["ana"] and raters["ana"] == HUMAN
    assert backend.ratings_of("ana") == {ITEMS[0]: 1.0, ITEMS[1]: 2.0, ITEMS[2]: 2.0}


def test_a_name_typed_in_nfd_is_the_nfc_rater_and_can_rate(backend):
    """Case 9: `Zoë` typed in NFD (as macOS types it) is the NFC `Zoë`; adding her again
    in NFC makes no second Zoë, and she rates under either form."""
    assert backend.add_person(NFD_ZOE) == NFC_ZOE
    assert backend.add_person(NFC_ZOE) == NFC_ZOE
    backend.rate(ITEMS[0], NFD_ZOE, 3.0)
    backend.import_ratings([NFD_ZOE.upper()], items=[ITEMS[1]])
    assert one_of_key(backend.raters(), NFC_ZOE) == [NFC_ZOE]
    assert backend.ratings_of(NFC_ZOE) == {ITEMS[0]: 3.0, ITEMS[1]: 2.0}


# ------------------------------------------------------------------ one namespace
def test_a_crowd_workers_name_is_refused_to_people_and_machines(backend):
    """Case 2: the person who would take a crowd worker's name would get the worker's open
    task and answers; every route refuses, naming the crowd worker."""
    assert backend.start("carol") == "carol"
    backend.sync()
    refused(lambda: backend.add_person("Carol"), "'carol'", "crowd worker")
    refused(lambda: backend.rate(ITEMS[0], "CAROL", 1.0), "crowd worker")
    refused(lambda: backend.import_ratings(["carol"]), "crowd worker")
    refused(lambda: backend.import_machine("carol"), "crowd worker")
    assert backend.raters()["carol"] == CROWD
    # `CAROL` is carol: her one live task (open in her browser), never a second worker
    refused(lambda: backend.lease("CAROL"), "already has a task open")


def test_a_machine_raters_name_is_refused_to_people_and_workers(backend):
    """Case 3: a person named like a machine rater would hold its scores as his own."""
    backend.import_machine("bot")
    refused(lambda: backend.add_person("Bot"), "machine rater")
    refused(lambda: backend.lease("BOT"), "machine rater")
    refused(lambda: backend.rate(ITEMS[0], "bot", 4.0), "machine rater")
    refused(lambda: backend.import_ratings(["bot"], kind=CROWD), "machine rater")
    assert backend.raters()["bot"] == "machine"
    assert backend.ratings_of("bot") == {item: 3.0 for item in ITEMS[:3]}


def test_a_person_imported_after_publishing_is_never_let_in_as_a_worker(backend):
    """Case 1: a person imported into the organizer's file (after `team publish`, on a
    hub) holds the name there: a web worker of that name is refused, naming the kind."""
    backend.import_ratings(["dave"])
    refused(lambda: backend.lease("dave"), "human annotator")
    refused(lambda: backend.lease("DAVE"), "human annotator")
    refused(lambda: backend.import_machine("Dave"), "human annotator")
    assert backend.raters()["dave"] == HUMAN
    assert backend.ratings_of("dave") == {ITEMS[0]: 2.0, ITEMS[1]: 2.0}


def test_a_machine_import_never_turns_a_crowd_worker_into_a_machine(backend):
    """Case 4: on the hub the organizer's file has not pulled the worker yet; the hub
    refuses the machine under his name, and his task goes on."""
    assert backend.start("wk7") == "wk7"
    line = refused(lambda: backend.import_machine("wk7"), "crowd worker")
    assert "wk7" in line
    assert backend.raters()["wk7"] == CROWD
    # his task stays his (refused only because it is open in his browser, not 403)
    refused(lambda: backend.lease("WK7"), "already has a task open")


def test_a_start_that_never_rated_holds_no_name_and_writes_nothing_under_a_person(backend):
    """A lease alone adds no rater (a flood leaves nothing behind, issue 32); if a person
    takes the name meanwhile, the worker's first rating is refused, naming the person's
    kind, and nothing is stored under the person."""
    assert backend.lease("erin") == "erin"
    assert "erin" not in backend.raters()
    assert backend.add_person("Erin") == "Erin"
    assert backend.raters()["Erin"] == HUMAN
    refused(lambda: backend.start("erin"), "human annotator")
    assert backend.ratings_of("Erin") == {} and "erin" not in backend.raters()


# ------------------------------------------------------------------ ids never reused
def test_a_stale_roster_never_writes_under_the_rater_who_came_after_an_undo(backend):
    """Case 7: process A holds `carl` in its roster; B undoes the import that added him;
    C imports `dora`. A's rating of carl goes to carl, never to dora."""
    with Project.open(backend.path) as b, Project.open(backend.path) as c, \
            Project.open(backend.path) as a:
        b.import_ratings(frame_of(["carl"]), source="carl.csv")
        a.roster.reload()
        carl_id = a.roster.id_of("carl")
        assert carl_id is not None
        b.undo_import()
        c.import_ratings(frame_of(["dora"], items=ITEMS[5:8]), source="dora.csv")
        assert c.roster.id_of("dora") > carl_id  # never the freed id
        a.rate(ITEMS[10], "carl", 4.0)
        a.roster.reload()
        assert a.roster.id_of("carl") not in (carl_id, c.roster.id_of("dora"))
    backend.sync()
    assert backend.ratings_of("dora") == {item: 2.0 for item in ITEMS[5:8]}
    assert backend.ratings_of("carl").get(ITEMS[10]) == 4.0
