"""Readers fail in one line naming the file: a pyramid declaring an encoding Python lacks, a
NUL byte during detection, a text that is only white space."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, new_project, one_line_error

PYR = ROOT / "sample_data" / "D9901.pyr"


@pytest.mark.parametrize("encoding", ["UTF-7", "foo-bar", "utf-32"])
def test_pyr_declaring_an_encoding_python_cannot_use(capsys, tmp_path, encoding):
    lines = PYR.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "bad.pyr"
    path.write_text(f'<?xml version="1.0" encoding="{encoding}"?>\n' + "".join(lines[1:]),
                    encoding="utf-8")
    result = simrate(capsys, "pyramid", path, "--out", tmp_path / "out.tsv")
    assert result.status == 2
    one_line_error(result.err, f"{path}:1:", f"encoding {encoding!r}")
    assert not (tmp_path / "out.tsv").exists()


def test_a_nul_byte_makes_detection_name_the_line(capsys, tmp_path):
    """Detection takes a NUL for a binary file and says where; with `--format pairs` such
    a text is read as it is (texts may hold any character: test_roundtrip_property.py)."""
    path = tmp_path / "pairs.tsv"
    path.write_bytes(b"id\tleft\tright\na1\tok\tfine\na2\tbad\x00x\tfine\n")
    project = tmp_path / "p.simrate"
    new_project(project, n_items=0).close()
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "NUL byte")
    with Project.open(project) as opened:
        assert opened.n_items == 0


def test_a_text_that_is_only_white_space_is_refused_by_the_api_as_by_every_reader(tmp_path):
    """The API keeps the readers' rule, so every export of a project reads back: an id or a
    text that is empty or only white space is refused, naming the line, nothing stored."""
    from simrate.core.base.frames import item_frame

    def frame(left: str, right: str, item: str = "b") -> object:
        return item_frame({"item_id": ["a", item], "left": ["fine", left],
                           "right": ["fine", right], "dataset": ["", ""], "genre": ["", ""],
                           "reference": [None, None], "meta": [{}, {}], "line": [2, 3]})

    with Project.create(tmp_path / "p.simrate", scale="sts") as project:
        for bad, where in ((frame(" \t\u3000", "x"), "item 'b': the left text"),
                           (frame("x", ""), "item 'b': the right text"),
                           (frame("x", "y", item="  "), "the id")):
            with pytest.raises(SimrateError) as caught:
                project.import_items(bad, "items.tsv")
            assert str(caught.value).startswith(f"items.tsv:3: {where} is empty or only white")
            assert project.n_items == 0
        assert project.import_items(frame(" x ", "y"), "items.tsv") == (2, 0)
