"""Turk/Turkle batch results: detection, rejected rows, entities, work time, errors."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.detect import detect_format
from simrate.formats.readers.turk import read_turk

HEAD = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"


def write(tmp_path, text, name="Batch_1_batch_results.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_detected_and_read(tmp_path):
    path = write(tmp_path, HEAD + "Input.id1,Input.left1,Input.right1,Input.id2,Answer.score1,"
                 "Answer.score2,Answer.comment1\n"
                 'H1,A1,W1,Approved,120,a,"One&#44; two",x &amp; y,b,3,4.5,hmm\n'
                 "H1,A2,W2,Rejected,5,a,One,x,b,zzz,,\n"
                 'H1,A3,W3,Submitted,30,a,"multi\nline",x,b,2,,\n')
    assert detect_format(path) == "turk"
    frame = read_turk(path)
    assert frame["annotator"].tolist() == ["W1", "W1", "W3"]
    assert frame["item_id"].tolist() == ["a", "b", "a"]
    assert frame["score"].tolist() == [3.0, 4.5, 2.0]
    assert frame["left"].iat[0] == "One, two" and frame["right"].iat[0] == "x & y"
    assert frame["seconds"].tolist() == [60.0, 60.0, 30.0]  # per answered item
    assert frame["note"].iat[0] == "hmm"
    assert frame["line"].tolist() == [2, 2, 4]
    assert frame.attrs["warnings"] == ["1 rejected assignments left out"]


def test_single_item_tasks_without_numbers(tmp_path):
    path = write(tmp_path, HEAD + "Input.id,Answer.rating\nH,A,W,Approved,7,i1,1.25\n")
    frame = read_turk(path)
    assert frame[["item_id", "annotator", "score"]].values.tolist() == [["i1", "W", 1.25]]


@pytest.mark.parametrize("text, message, line", [
    (HEAD + "Input.id1,Answer.score1\nH,A,W,Approved,7,i1,high\n", "'high' is not a number", 2),
    (HEAD + "Input.id1,Answer.score1\nH,A,,Approved,7,i1,1\n", "empty WorkerId", 2),
    (HEAD + "Input.text,Answer.score1\nH,A,W,Approved,7,i1,1\n", "no item answers", None),
    ("HITId,WorkerId,AssignmentStatus,Answer.score1\nH,W,Approved,1\n", "AssignmentId", 1),
])
def test_bad_files_name_the_line(tmp_path, text, message, line):
    with pytest.raises(SimrateError) as error:
        read_turk(write(tmp_path, text))
    assert message in error.value.message and error.value.line == line
