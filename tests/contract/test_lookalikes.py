"""One rater namespace across scripts and kinds (issue 42), alike on the plain file and on
the hub: names that look alike across scripts (Latin `coe` and Cyrillic `сое`, Latin
`ABE` and Greek `ΑΒΕ`) are one rater by every route (CSV, XLSX, a package merge,
`team add`); a crowd worker's name is never taken by a person or a machine rater, even
from a replica that has not pulled the worker yet; `team add` of an existing person under
another spelling (fullwidth `ＡＮＮ`) never changes her password unasked."""

from __future__ import annotations

import pytest

from simrate.core.base.names import rater_key
from simrate.core.data.store import CROWD, HUMAN
from simrate.core.project import Project
from tests.contract.backends import ITEMS, Refused

LATIN_COE, CYRILLIC_COE = "coe", "\u0441\u043e\u0435"
LATIN_ABE, GREEK_ABE = "ABE", "\u0391\u0392\u0395"
PAIRS = [(LATIN_COE, CYRILLIC_COE), (LATIN_ABE, GREEK_ABE), (CYRILLIC_COE, LATIN_COE)]


def of_key(backend, name: str) -> list[str]:
    """The raters the authority (the file, the hub) holds under `name`'s key."""
    return [n for n in backend.raters() if rater_key(n) == rater_key(name)]


def refused(action, *words: str) -> str:
    with pytest.raises(Refused) as caught:
        action()
    for word in words:
        assert word in str(caught.value), str(caught.value)
    return str(caught.value)


def write_csv(path, name: str, items: list[str]) -> None:
    path.write_text("item_id,annotator,score\n" + "".join(f"{i},{name},4\n" for i in items),
                    encoding="utf-8")


def write_xlsx(path, name: str, items: list[str]) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["item_id", "annotator", "score"])
    for item in items:
        sheet.append([item, name, 4])
    book.save(path)


def import_file(backend, path) -> None:
    """A ratings file read as `simrate import` reads it, then imported (and synced)."""
    from simrate.services.imports.file_import import read_file

    frame = read_file(path, "ratings").frame
    backend._do(lambda: backend.project.import_ratings(frame, source=path.name))
    backend.sync()


@pytest.mark.parametrize("first, second", PAIRS)
@pytest.mark.parametrize("route", ["csv", "xlsx"])
def test_lookalikes_across_scripts_are_one_rater_through_files(backend, tmp_path, route,
                                                               first, second):
    write = write_csv if route == "csv" else write_xlsx
    write(tmp_path / f"a.{route}", first, ITEMS[:2])
    import_file(backend, tmp_path / f"a.{route}")
    write(tmp_path / f"b.{route}", second, ITEMS[2:4])
    import_file(backend, tmp_path / f"b.{route}")
    assert of_key(backend, first) == [first]  # the first spelling keeps the rater
    assert sorted(backend.ratings_of(first)) == ITEMS[:4]


@pytest.mark.parametrize("first, second", PAIRS[:2])
def test_lookalikes_across_scripts_are_one_person_through_team_add(backend, first, second):
    assert backend.add_person(first) == first
    assert backend.add_person(second) == first  # no second person, no second rater
    backend.rate(ITEMS[0], second, 1.0)
    assert of_key(backend, first) == [first]
    assert backend.ratings_of(first) == {ITEMS[0]: 1.0}


def test_a_package_for_a_lookalike_merges_into_the_one_rater(backend, tmp_path):
    """A package made for Cyrillic `сое` before Latin `coe` rated anything: merged after
    `coe`'s ratings came in, its ratings are `coe`'s."""
    from simrate.core.team.package_merge import merge_package
    from simrate.core.team.packages import make_package

    package = tmp_path / "coe.simrate"
    backend._do(lambda: make_package(backend.project, package, CYRILLIC_COE, sample=3))
    write_csv(tmp_path / "latin.csv", LATIN_COE, ITEMS[10:12])
    import_file(backend, tmp_path / "latin.csv")
    with Project.open(package) as returned:
        rated = [i for i in returned.item_ids() if i not in ITEMS[10:12]][:2]
        for item in rated:
            returned.rate(item, CYRILLIC_COE, 3.0)
    backend._do(lambda: merge_package(backend.project, package))
    backend.sync()
    assert of_key(backend, LATIN_COE) == [LATIN_COE]
    assert set(rated) <= set(backend.ratings_of(LATIN_COE))


def test_a_lookalike_of_another_kind_is_refused(backend):
    """A machine rater `ABE`: Greek `ΑΒΕ` is its name too, refused to people and workers."""
    backend.import_machine(LATIN_ABE)
    refused(lambda: backend.add_person(GREEK_ABE), "machine rater")
    refused(lambda: backend.import_ratings([GREEK_ABE]), "machine rater")
    assert of_key(backend, GREEK_ABE) == [LATIN_ABE]


# ------------------------------------------------------------------ one namespace of kinds
def test_a_crowd_worker_is_never_a_person_even_before_the_replica_pulled_him(backend):
    """The worker rated; the organizer's replica has not synced since: `team add` of his
    name (any case) is refused naming the crowd worker, and he stays one."""
    assert backend.start("wk21") == "wk21"
    refused(lambda: backend.add_person("WK21"), "'wk21'", "crowd worker")
    assert backend.raters()["wk21"] == CROWD


def test_a_machine_import_before_the_replica_pulled_the_worker_is_refused(backend):
    """The organizer's replica imports a machine rater `wk22` without asking the hub first
    (as an import made offline does) and had not pulled the worker `wk22`: the sync is
    refused with one line naming the crowd worker, who stays a crowd worker with only his
    own ratings."""
    assert backend.start("wk22") == "wk22"
    own = backend.ratings_of("wk22")
    refused(lambda: backend.import_machine("wk22"), "'wk22'", "crowd worker")
    assert backend.raters()["wk22"] == CROWD
    assert backend.ratings_of("wk22") == own  # none of the machine's scores


def test_a_raters_kind_never_changes_on_the_hub(backend):
    """A client writing the hub's rows itself cannot turn a crowd worker into a machine."""
    assert backend.start("wk23") == "wk23"
    if backend.kind == "hub":
        def update():
            with backend.hub.connect_as(backend.hub.organizer, "org-secret") as conn:
                conn.execute("UPDATE simrate.annotators SET kind = 'machine' "
                             "WHERE name = 'wk23'")
        refused(lambda: backend._do(update), "'wk23'", "crowd worker")
    assert backend.raters()["wk23"] == CROWD


# ------------------------------------------------------------------ passwords
def test_team_add_of_an_existing_person_in_fullwidth_never_resets_her_password(backend):
    """`team add 'ＡＮＮ'` with a password, `ann` being a person already: refused naming
    `ann` and the way to reset deliberately; with the reset asked for, she is `ann`."""
    assert backend.add_person("ann") == "ann"
    if backend.kind == "file":  # no passwords on a file: the same person, no second row
        assert backend.add_person("\uff21\uff2e\uff2e") == "ann"
        assert of_key(backend, "ann") == ["ann"]
        return
    from simrate.hub.team.people import add_person

    hub = backend.hub
    login, _url = backend._do(lambda: add_person(backend.project, "Bea", "annotator",
                                                 "bea-pw", login=f"{hub.name}_bea"))
    hub.remember(login, "bea-pw")
    line = refused(lambda: backend._do(lambda: add_person(
        backend.project, "\uff22\uff25\uff21", "annotator", "other-pw")),
        "'Bea'", login, "--reset-password")
    assert "nothing was changed" in line
    with hub.connect_as(login, "bea-pw") as conn:  # her password still works
        assert conn.execute("SELECT simrate.my_name()").fetchone() == ("Bea",)
    again, _url = backend._do(lambda: add_person(backend.project, "\uff22\uff25\uff21",
                                                 "annotator", "new-pw", reset=True))
    assert again == login
    hub.remember(login, "new-pw")
    with hub.connect_as(login, "new-pw") as conn:
        assert conn.execute("SELECT simrate.my_name()").fetchone() == ("Bea",)
    assert of_key(backend, "bea") == ["Bea"] and backend.raters()["Bea"] == HUMAN


def test_publishing_again_never_puts_a_machines_scores_under_a_worker(backend):
    """After the refused sync above, `team publish` again (which uploads what the hub
    lacks) is refused too, naming the crowd worker; none of the machine's scores go under
    his name."""
    assert backend.start("wk24") == "wk24"
    own = backend.ratings_of("wk24")
    refused(lambda: backend.import_machine("wk24"), "'wk24'", "crowd worker")
    if backend.kind == "hub":
        from simrate.hub.team.publish import publish

        refused(lambda: backend._do(lambda: publish(backend.project, backend.hub.url())),
                "'wk24'", "crowd worker")
    assert backend.raters()["wk24"] == CROWD
    assert backend.ratings_of("wk24") == own
