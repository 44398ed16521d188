"""Ratings go under their own rater only: crowd workers, people and machine raters never
share a name, and a crowd answer about other texts is no rating of the project's item."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate

HEAD = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
TURK = HEAD + "Input.id1,Input.left1,Input.right1,Answer.score1\n"


@pytest.fixture
def project(tmp_path, capsys):
    """Items a, b; ana (a person) rated a: 1; gpt (a machine rater) scored a: 4."""
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "sts").status == 0
    items = tmp_path / "items.tsv"
    items.write_text("id\tleft\tright\na\tA cat sits.\tA cat is sitting.\n"
                     "b\tRain falls.\tIt rains.\n", encoding="utf-8")
    assert simrate(capsys, "import", path, items).status == 0
    ratings = tmp_path / "ana.csv"
    ratings.write_text("item_id,annotator,score\na,ana,1\n", encoding="utf-8")
    assert simrate(capsys, "import", path, ratings).status == 0
    machine = tmp_path / "gpt.csv"
    machine.write_text("item_id,annotator,score\na,gpt,4\n", encoding="utf-8")
    done = simrate(capsys, "import", path, machine, "--machine", "gpt")
    assert done.status == 0, done.err
    return path


def unchanged(path) -> None:
    with Project.open(path) as opened:
        assert opened.rating("a", "ana") == 1.0 and opened.rating("a", "gpt") == 4.0
        assert sorted(opened.ratings()["annotator"]) == ["ana", "gpt"]
        assert opened.n_items == 2


def one_error(result, *needles: str) -> None:
    assert result.status == 2, result.out
    lines = result.err.strip().splitlines()
    assert lines[-1].startswith("simrate: error: ") and "Traceback" not in result.err
    for needle in needles:
        assert needle in lines[-1], lines[-1]


@pytest.mark.parametrize("worker, kind", [("ana", "a human annotator"),
                                          (" ana ", "a human annotator"),
                                          ("gpt", "a machine rater")])
def test_a_crowd_worker_never_takes_a_person_or_machine_name(project, tmp_path, capsys,
                                                             worker, kind):
    results = tmp_path / "Batch_1_batch_results.csv"
    results.write_text(TURK + "H1,A1,W9,Approved,10,b,Rain falls.,It rains.,3\n"
                       f"H1,A2,{worker},Approved,10,a,A cat sits.,A cat is sitting.,5\n"
                       "H1,A3,W8,Approved,10,new,Snow.,It snows.,2\n", encoding="utf-8")
    refused = simrate(capsys, "import", project, results)
    one_error(refused, f"{results}:3:", "WorkerId 'ana'" if "ana" in worker else "'gpt'", kind)
    unchanged(project)  # nothing written, the file's new item not added either


def test_crowd_workers_are_their_own_kind(project, tmp_path, capsys):
    results = tmp_path / "Batch_1_batch_results.csv"
    results.write_text(TURK + "H1,A1,W9,Approved,10,b,Rain falls.,It rains.,3\n",
                       encoding="utf-8")
    assert simrate(capsys, "import", project, results).status == 0
    with Project.open(project) as opened:
        assert opened.roster.kinds() == {"ana": "human", "gpt": "machine", "W9": "crowd"}
        assert opened.rating("b", "W9") == 3.0
    # the reverse: a ratings file of people naming the crowd worker is refused too
    ratings = tmp_path / "people.csv"
    ratings.write_text("item_id,annotator,score\nb,ana,2\nb,W9,0\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, ratings), f"{ratings}:3:", "'W9'",
              "a crowd worker")
    # and a second results file of the same worker adds to their ratings
    more = tmp_path / "Batch_2_batch_results.csv"
    more.write_text(TURK + "H2,A1,W9,Approved,10,a,A cat sits.,A cat is sitting.,2\n",
                    encoding="utf-8")
    assert simrate(capsys, "import", project, more).status == 0
    with Project.open(project) as opened:
        assert opened.rating("a", "W9") == 2.0 and opened.rating("b", "ana") is None


def test_a_ratings_file_never_writes_into_a_machine_rater(project, tmp_path, capsys):
    ratings = tmp_path / "people.csv"
    ratings.write_text("item_id,annotator,score\nb,ana,2\na,gpt,0\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, ratings), f"{ratings}:3:", "'gpt'",
              "a machine rater", "people's ratings")
    unchanged(project)
    # a file read with --annotator gpt: the same
    one = tmp_path / "one.csv"
    one.write_text("item_id,score\nb,2\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, one, "--annotator", "gpt"), f"{one}:2:",
              "'gpt'")
    unchanged(project)


def test_a_crowd_worker_is_no_machine_rater_either(project, tmp_path, capsys):
    results = tmp_path / "Batch_1_batch_results.csv"
    results.write_text(TURK + "H1,A1,W9,Approved,10,b,Rain falls.,It rains.,3\n",
                       encoding="utf-8")
    assert simrate(capsys, "import", project, results).status == 0
    machine = tmp_path / "w9.csv"
    machine.write_text("item_id,annotator,score\nb,W9,1\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, machine, "--machine", "W9"), "'W9'",
              "a crowd worker")
    with Project.open(project) as opened:
        assert opened.rating("b", "W9") == 3.0 and opened.roster.machines() == ["gpt"]


@pytest.mark.parametrize("left, right", [("A dog sits.", "A cat is sitting."),
                                         ("A cat sits.", "A cat is sitting!")])
def test_a_crowd_answer_about_other_texts_is_refused(project, tmp_path, capsys, left, right):
    results = tmp_path / "Batch_1_batch_results.csv"
    results.write_text(TURK + "H1,A1,W9,Approved,10,b,Rain falls.,It rains.,3\n"
                       f"H1,A2,W8,Approved,10,a,{left},{right},5\n", encoding="utf-8")
    refused = simrate(capsys, "import", project, results)
    side = "left" if left != "A cat sits." else "right"
    one_error(refused, f"{results}:3:", "item 'a'", f"{side} text that differs")
    unchanged(project)


def test_answers_about_a_new_item_agree_on_its_texts(project, tmp_path, capsys):
    results = tmp_path / "Batch_1_batch_results.csv"
    results.write_text(TURK + "H1,A1,W9,Approved,10,new,Snow.,It snows.,3\n"
                       "H1,A2,W8,Approved,10,new,Hail.,It snows.,5\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, results), f"{results}:3:", "item 'new'")
    unchanged(project)


def test_no_package_for_a_machine_rater(project, tmp_path, capsys):
    out = tmp_path / "gpt.simrate"
    refused = simrate(capsys, "package", project, out, "--annotator", "gpt")
    one_error(refused, "'gpt'", "a machine rater")
    assert not out.exists()


@pytest.mark.parametrize("layout", ["long", "wide"])
def test_a_ratings_file_showing_other_texts_is_refused(project, tmp_path, capsys, layout):
    ratings = tmp_path / f"{layout}.tsv"
    if layout == "long":
        ratings.write_text("item_id\tsentence1\tsentence2\tannotator\tscore\n"
                           "b\tRain falls.\tIt rains.\tbo\t2\n"
                           "a\tA cat sits.\tA dog is sitting.\tbo\t3\n", encoding="utf-8")
    else:
        ratings.write_text("item_id\tleft\tright\trating:bo\n"
                           "b\tRain falls.\tIt rains.\t2\n"
                           "a\tA cat sits.\tA dog is sitting.\t3\n", encoding="utf-8")
    one_error(simrate(capsys, "import", project, ratings, "--format", "ratings"),
              f"{ratings}:3:", "item 'a'", "right text differs")
    unchanged(project)


@pytest.mark.parametrize("suffix", ["tsv", "csv", "xlsx"])
def test_an_export_with_texts_imports_back_as_ratings(project, tmp_path, capsys, suffix):
    gold = tmp_path / f"gold.{suffix}"
    assert simrate(capsys, "export", project, gold, "--allow-unresolved").status == 0
    other = tmp_path / "other.simrate"
    assert simrate(capsys, "new", other, "--scale", "sts").status == 0
    assert simrate(capsys, "import", other, tmp_path / "items.tsv").status == 0
    done = simrate(capsys, "import", other, gold, "--format", "ratings")
    assert done.status == 0, done.err
    with Project.open(other) as opened:
        assert opened.rating("a", "ana") == 1.0
