"""Crowd results name each assignment once: one AssignmentId under two workers is refused with
its line, one worker repeating it keeps the first answer."""

from __future__ import annotations

from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error
from tests.support.samples import table_rows, turk_results


def test_one_assignment_under_two_workers_is_refused(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 2).close()
    before = table_rows(path)
    source = turk_results(tmp_path / "results.csv", [
        "H1,A1,w1,Approved,12,x:1,,,3",
        "H1,A2,w2,Approved,12,x:1,,,2",
        "H2,A1,w3,Approved,12,x:2,,,1",
    ])
    result = simrate(capsys, "import", path, source)
    assert result.status == 2
    one_line_error(result.err, f"{source}:4:", "assignment 'A1' is given to worker 'w3' here "
                   "and to 'w1' on line 2")
    assert table_rows(path) == before


def test_one_worker_repeating_an_assignment_keeps_the_first_answer(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 2).close()
    source = turk_results(tmp_path / "results.csv", [
        "H1,A1,w1,Approved,12,x:1,,,3",
        "H1,A1,w1,Approved,12,x:1,,,3",
    ])
    result = simrate(capsys, "import", path, source)
    assert result.status == 0, result.err
    assert "1 answers of a worker to an item they had already answered left out" in result.err
