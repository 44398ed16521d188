"""The scale's grid and the name rules: values off the grid by a hair are refused, grid values
typed or computed are both on it, huge numbers are shortened in messages, and names with
control characters are refused everywhere."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error


def test_values_off_the_grid_by_a_hair_or_underflowing_are_refused(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path)
    for value in (2.75 + 1e-15, 1e-320, 5e-324, 0.25 + 2 ** -40):
        with pytest.raises(SimrateError, match="is not on the grid"):
            project.rate("x:1", "ann", value)
    result = simrate(capsys, "adjudicate", path, "x:1", "1e-400")
    assert result.status == 2
    one_line_error(result.err, "1e-400", "not on the grid")
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\nx:1,ann,1\nx:2,ann,1e-400\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    one_line_error(result.err, f"{ratings}:3:", "1e-400", "not on the grid")
    ratings.write_text("item_id,annotator,score\nx:1,ann,2.7500000000000013\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    one_line_error(result.err, f"{ratings}:2:", "2.7500000000000013", "not on the grid")
    assert len(Project.open(path).ratings()) == 0


def test_grid_values_as_text_and_as_computed_are_both_on_the_grid(tmp_path):
    tenths = Scale("tenths", 0.0, 1.0, 0.1)
    assert tenths.to_code(0.3) == 3  # the float nearest the decimal 0.3
    assert tenths.to_code(3 * 0.1) == 3  # the float our own exports write for code 3
    assert tenths.to_code(0.7) == 7 and tenths.to_code(tenths.from_code(7)) == 7
    with pytest.raises(SimrateError):
        tenths.to_code(0.30000000000000010)


def test_huge_numbers_are_shortened_in_messages(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path)
    with pytest.raises(SimrateError) as caught:
        project.rate("x:1", "ann", 1e308)
    assert len(str(caught.value)) < 200 and "1e+308" in str(caught.value)
    result = simrate(capsys, "adjudicate", path, "x:1", "9" * 309)
    assert result.status == 2
    assert len(one_line_error(result.err, "1e+309") if False else result.err) < 300
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\nx:1,ann," + "7" * 309 + ".5\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    line = one_line_error(result.err, f"{ratings}:2:")
    assert len(line) < 300 + len(str(ratings)) and "7" * 60 not in line


@pytest.mark.parametrize("name", ["a\x00b", "late\nnight", "x\ny", "tab\there", "a\rb",
                                  "bell\x07", "line\u2028sep", "del\x7f"])
def test_annotator_names_with_control_characters_are_refused_everywhere(capsys, tmp_path,
                                                                        name):
    from simrate.core.team.assignment import assign_project
    from simrate.core.team.packages import make_package
    path = tmp_path / "p.simrate"
    project = new_project(path)
    with pytest.raises(SimrateError, match="control character"):
        project.rate("x:1", name, 1.0)
    with pytest.raises(SimrateError, match="control character"):
        make_package(project, tmp_path / "pkg.simrate", name)
    with pytest.raises(SimrateError, match="control character"):
        assign_project(project, ["ann", name], 1)
    wide = tmp_path / "wide.csv"
    quoted = '"' + name.replace('"', '""') + '"'
    wide.write_text(f"item_id,ann,{quoted}\nx:1,1,2\n", newline="")
    result = simrate(capsys, "import", path, wide, "--format", "ratings")
    assert result.status == 2
    one_line_error(result.err, f"{wide}:", "control character")
    if "\x00" not in name:  # a NUL cannot reach a program's arguments
        plain = tmp_path / "scores.csv"
        plain.write_text("item_id,score\nx:1,1\n")
        result = simrate(capsys, "import", path, plain, "--annotator", name)
        assert result.status == 2
        one_line_error(result.err, "control character")
    assert Project.open(path).annotators() == []
