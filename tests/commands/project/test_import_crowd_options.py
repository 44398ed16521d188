"""simrate import: Turk results bring their items, --annotator-column maps participant ids."""

from __future__ import annotations

from simrate.core.project import Project
from tests.cli.helpers import simrate

HEAD = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"


def test_turk_results_add_missing_items_with_decoded_texts(tmp_path, capsys):
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    results = tmp_path / "results.csv"
    results.write_text(HEAD + "Input.id1,Input.left1,Input.right1,Answer.score1\n"
                       "H,A1,W1,Approved,10,q1,Hello&#44; world,Hi,4\n"
                       "H,A2,W2,Approved,20,q1,Hello&#44; world,Hi,3.5\n", encoding="utf-8")
    done = simrate(capsys, "import", project, results)
    assert done.status == 0, done.err
    assert "2 ratings added" in done.out and "1 item added" in done.out
    with Project.open(project) as opened:
        assert opened.item("q1")["left"] == "Hello, world"
        assert opened.rating_record("q1", "W2")["seconds"] == 20.0
    off_grid = tmp_path / "bad.csv"
    off_grid.write_text(HEAD + "Input.id1,Input.left1,Input.right1,Answer.score1\n"
                        "H,A1,W1,Approved,10,q2,x,y,4.1\n", encoding="utf-8")
    refused = simrate(capsys, "import", project, off_grid)
    assert refused.status == 2 and "bad.csv:2:" in refused.err and "grid" in refused.err
    with Project.open(project) as opened:
        assert not opened.has_item("q2")  # all or nothing: the item was not added either


def test_annotator_column(tmp_path, capsys):
    project = tmp_path / "p.simrate"
    simrate(capsys, "new", project, "--scale", "sts")
    items = tmp_path / "items.tsv"
    items.write_text("id\tleft\tright\na\tx\ty\nb\tu\tv\n", encoding="utf-8")
    assert simrate(capsys, "import", project, items).status == 0
    survey = tmp_path / "prolific.csv"
    survey.write_text("PROLIFIC_PID,item_id,score,rater\n5f1,a,1,ignored\n5f1,b,2,x\n"
                      "6aa,a,3,y\n", encoding="utf-8")
    done = simrate(capsys, "import", project, survey, "--annotator-column", "PROLIFIC_PID")
    assert done.status == 0, done.err
    with Project.open(project) as opened:
        assert opened.annotators() == ["5f1", "6aa"]
    wrong = simrate(capsys, "import", project, survey, "--annotator-column", "PID")
    assert wrong.status == 2 and "prolific.csv:1: no column 'PID'" in wrong.err
