"""Mixed encodings are refused, naming the line; cp1252 only when no line is UTF-8."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error

HEADER = "item_id\tsentence1\tsentence2\n"


def _pairs(tmp_path, *lines: bytes, name: str = "pairs.tsv"):
    path = tmp_path / name
    path.write_bytes(HEADER.encode() + b"".join(lines))
    return path


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 0).close()
    return path


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_utf8_file_with_one_cp1252_line_is_refused_naming_it(capsys, tmp_path, project, bom):
    path = tmp_path / "mixed.tsv"
    path.write_bytes(bom + HEADER.encode() + "a\tcafé\t東京\n".encode()
                     + b"b\tplain\tascii\n" + "c\tcaf\xe9\tna\xefve\n".encode("latin-1")
                     + "d\tnaïve\tok\n".encode())
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    line = one_line_error(result.err, f"{path}:4:", "mixed encodings", "byte 0xE9 at column 6")
    assert "UTF-8" in line
    assert Project.open(project).n_items == 0


def test_one_line_mixing_utf8_and_cp1252_is_refused(capsys, tmp_path, project):
    path = _pairs(tmp_path, "a\tcafé \xe9\tx\n".encode("utf-8", "surrogateescape")
                  .replace(b"\xc3\xa9 \xc3\xa9", b"\xc3\xa9 \xe9"))
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:2:", "mixed encodings")


def test_all_cp1252_file_falls_back_and_says_so(capsys, tmp_path, project):
    path = _pairs(tmp_path, "a\tcafé\tna\u00efve \u20ac5\n".encode("cp1252"),
                  b"b\tplain\tascii\n")
    result = simrate(capsys, "import", project, path)
    assert result.status == 0, result.err
    assert "no line is UTF-8 beyond ASCII; read as Windows-1252" in result.err
    item = Project.open(project).item("a")
    assert (item["left"], item["right"]) == ("café", "naïve €5")


def test_mixed_ratings_csv_is_refused(capsys, tmp_path, project):
    with Project.open(project) as p:
        from tests.support.helpers import make_items
        p.import_items(make_items(2))
    path = tmp_path / "r.csv"
    path.write_bytes("item_id,annotator,score,note\nx:1,zoë,1,\n".encode()
                     + "x:2,zo\xeb,2,\n".encode("latin-1"))
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "mixed encodings")
    assert len(Project.open(project).ratings()) == 0
