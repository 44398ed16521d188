"""The published folder's allow-list: planted private values (a login inside a path, a
person's name in an extra column, a host, an e-mail address) reach no file of the folder
unless the organizer keeps their column, and the terminal and the card say what was left
out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simrate.services.dataset.dataset_privacy import private_kind
from tests.cli.helpers import simrate
from tests.services.dataset import dataset_fixtures  # noqa: F401 - `datasets` offline, its cache

LOGIN_PATH = "/home/maria.garcia/corpora/sts/batch7.tsv"
COLLECTOR = "Josefina Ortega-Villalobos"
HOST = "node12.cluster.uni-example.de"
EMAIL = "jortega@uni-example.de"
PLANTED = (LOGIN_PATH, "maria.garcia", COLLECTOR, HOST, EMAIL)


def _project(capsys, folder: Path) -> Path:
    project = folder / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    lines = ["id\tleft\tright\tdataset\tgenre\tsource_file\tcollected_by\thost\tcontact\ttopic"]
    for i in range(1, 7):
        genre = LOGIN_PATH if i == 2 else HOST if i == 3 else "news"
        lines.append(f"{i}\tLeft {i}\tRight {i}\tsetA\t{genre}\t{LOGIN_PATH}\t{COLLECTOR}\t"
                     f"{HOST}\t{EMAIL}\ttopic-{i}")
    (folder / "items.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert simrate(capsys, "import", project, folder / "items.tsv").status == 0
    raters = ("Ulrike Pfannenstiel", "Teodor Brzezicki")
    ratings = ["item_id,annotator,score"] + [f"{i},{who},{(i + n) % 6}" for i in range(1, 7)
                                              for n, who in enumerate(raters)]
    (folder / "r.csv").write_text("\n".join(ratings) + "\n", encoding="utf-8")
    done = simrate(capsys, "import", project, folder / "r.csv")
    assert done.status == 0, done.err
    return project


def _everything(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_planted_private_values_reach_no_file_unless_kept(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset",
                   "--allow-unresolved")
    assert done.status == 0, done.err
    data = _everything(out)
    for planted in PLANTED:
        assert planted.encode() not in data, planted
    assert ("collected_by: not a column simrate knows to be safe (--keep-column "
            "collected_by); names raters or their scores (--keep-rater-names)") in done.err
    for column in ("source_file", "host", "contact", "topic"):
        assert (f"source field left out of the dataset: {column}: not a column simrate "
                f"knows to be safe (--keep-column {column})") in done.err
        assert f"`{column}: not a column simrate knows to be safe" in \
            (out / "README.md").read_text(encoding="utf-8")
    assert "genre (values written as null): 1 host name, 1 path (--keep-column genre)" \
        in done.err
    gold = [json.loads(line) for line in (out / "data" / "gold-train.jsonl").open()]
    assert [g["genre"] for g in gold] == ["news", None, None, "news", "news", "news"]
    assert not [key for key in gold[0] if key.startswith("meta_")]

    kept = tmp_path / "kept"
    done = simrate(capsys, "export", project, kept, "--format", "dataset",
                   "--allow-unresolved", "--keep-column", "collected_by", "--keep-column",
                   "genre", "--keep-column", "host", "--keep-rater-names")
    assert done.status == 0, done.err
    data = _everything(kept)
    assert COLLECTOR.encode() in data and HOST.encode() in data
    assert LOGIN_PATH.encode() in data  # the genre column kept as it is
    assert EMAIL.encode() not in data  # its column was not asked for
    first = json.loads((kept / "data" / "gold-train.jsonl").open().readline())
    assert first["meta_collected_by"] == COLLECTOR and "meta_contact" not in first


def test_a_kept_column_that_holds_a_raters_name_still_needs_keep_rater_names(tmp_path,
                                                                             capsys):
    project = _project(capsys, tmp_path)
    items = tmp_path / "more.tsv"
    items.write_text("id\tleft\tright\tdataset\tchecked_by\n"
                     "x\tl\tr\tsetB\tUlrike Pfannenstiel\n", encoding="utf-8")
    assert simrate(capsys, "import", project, items).status == 0
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset",
                   "--allow-unresolved", "--keep-column", "checked_by")
    assert done.status == 0, done.err
    assert "checked_by: holds raters' names (--keep-rater-names)" in done.err
    assert b"Pfannenstiel" not in _everything(out)


@pytest.mark.parametrize(("value", "kind"), [
    ("/home/maria.garcia/x.tsv", "path"), ("C:\\Users\\maria\\data.csv", "path"),
    ("~/notes.txt", "path"), ("\\\\fileserver\\share\\a", "path"),
    ("saved as ./runs/7/out.json", "path"), ("file:///tmp/x", "path"),
    ("someone@example.org", "e-mail address"), ("write to a.b+c@mail.uni-x.de now",
                                                "e-mail address"),
    ("node12.cluster.uni-x.de", "host name"), ("10.0.0.12", "host name"),
    ("localhost:5432", "host name"), ("gpu-3.lab.internal", "host name"),
    ("MSRvid", None), ("answers-forums", None), ("A Walk To Remember", None),
    ("and/or", None), ("2015.10", None), ("news", None), ("", None)])
def test_private_looking_values(value, kind):
    assert private_kind(value) == kind
