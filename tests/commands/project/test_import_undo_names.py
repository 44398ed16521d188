"""`import --undo` takes back the last import that changed something and names it; a
re-import that changes nothing says it left no entry and which import --undo would take
instead; an undo under adjudications made on the ratings it removes needs --yes."""

from __future__ import annotations

import re

from simrate.core.project import Project
from tests.cli.helpers import simrate


def project_with_two_imports(tmp_path, capsys):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"p{n}\tleft {n}\tright {n}\n" for n in range(6)), encoding="utf-8")
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "sts").status == 0
    assert simrate(capsys, "import", path, pairs).status == 0
    for name, who, shift in (("ann.csv", "ann", 0), ("dana.csv", "dana", 3)):
        (tmp_path / name).write_text("item_id,annotator,score\n" + "".join(
            f"p{n},{who},{(n + shift) % 6}\n" for n in range(6)), encoding="utf-8")
        assert simrate(capsys, "import", path, tmp_path / name).status == 0
    return path


def ratings(path) -> int:
    with Project.open(path) as project:
        return len(project.ratings())


def test_a_re_import_that_changes_nothing_says_what_undo_would_take(tmp_path, capsys):
    path = project_with_two_imports(tmp_path, capsys)
    again = simrate(capsys, "import", path, tmp_path / "ann.csv")
    assert again.status == 0 and "0 ratings added, 0 changed, 6 unchanged" in again.out
    assert "nothing changed, so the change log has no entry for it" in again.err
    named = re.search(r"import --undo would take back import (\d+) \((.*?)\), an earlier import",
                      again.err)
    assert named and named.group(2).endswith("dana.csv")
    done = simrate(capsys, "import", path, "--undo")
    assert done.status == 0
    assert done.out.startswith(f"undid import {named.group(1)} ({named.group(2)}): 6 ratings")


def test_an_undo_under_adjudications_needs_yes(tmp_path, capsys):
    path = project_with_two_imports(tmp_path, capsys)
    flagged = simrate(capsys, "flagged", path, "--json").json()
    assert flagged  # ann and dana are 3 points apart
    item = flagged[0]["item_id"]
    assert simrate(capsys, "adjudicate", path, item, "2", "--by", "lead").status == 0
    refused = simrate(capsys, "import", path, "--undo")
    assert refused.status == 2 and "Traceback" not in refused.err
    assert f"wrote the ratings of an adjudicated item ({item!r})" in refused.err
    assert "dana.csv) wrote the ratings of" in refused.err and "--yes" in refused.err
    assert ratings(path) == 12  # nothing changed
    done = simrate(capsys, "import", path, "--undo", "--yes")
    assert done.status == 0 and "dana.csv): 6 ratings removed" in done.out
    assert ratings(path) == 6


def test_yes_goes_with_undo(tmp_path, capsys):
    path = project_with_two_imports(tmp_path, capsys)
    done = simrate(capsys, "import", path, tmp_path / "ann.csv", "--yes")
    assert done.status == 2 and "--yes goes with --undo" in done.err
