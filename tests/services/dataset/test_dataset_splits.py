"""Several splits in one dataset folder (--split NAME=DATASET,..., --add), re-exports that
keep the author's section of the card, the field's column names (--columns hf), and the
gold configuration's crowd figures, read back by `datasets` and `mlcroissant`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import mlcroissant as mlc
import pytest
from huggingface_hub import DatasetCard

from tests.cli.helpers import simrate
from tests.services.dataset import dataset_fixtures  # noqa: F401 - `datasets` offline, its cache

SIZES = {"alpha": 5, "beta": 3, "gamma": 4, "delta": 2}


def _project(capsys, folder: Path) -> Path:
    """Items of four sets, each rated by two raters (one skip), nothing flagged."""
    project = folder / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    lines, ratings = ["id\tleft\tright\tdataset"], ["item_id,annotator,score"]
    for name, size in SIZES.items():
        for i in range(size):
            lines.append(f"{name}{i}\tA {name} text {i}\tAnother {name} text {i}\t{name}")
            ratings += [f"{name}{i},Ada Quist,{i % 5}", f"{name}{i},Bo Rannveig,{i % 5}"]
    (folder / "items.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "r.csv").write_text("\n".join(ratings) + "\n", encoding="utf-8")
    for path in ("items.tsv", "r.csv"):
        done = simrate(capsys, "import", project, folder / path)
        assert done.status == 0, done.err
    return project


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_three_splits_load_as_a_dataset_dict(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset",
                   "--split", "train=alpha,delta", "--split", "validation=beta",
                   "--split", "test=gamma")
    assert done.status == 0, done.err
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))
    assert isinstance(gold, datasets.DatasetDict)
    assert {name: split.num_rows for name, split in gold.items()} == {
        "train": 7, "validation": 3, "test": 4}
    assert set(gold["test"]["dataset"]) == {"gamma"}
    ratings = datasets.load_dataset(str(out), "ratings", cache_dir=str(tmp_path / "c"))
    assert {name: split.num_rows for name, split in ratings.items()} == {
        "train": 14, "validation": 6, "test": 8}
    card = DatasetCard.load(out / "README.md").data.to_dict()
    assert [f["split"] for f in card["configs"][0]["data_files"]] == ["train", "validation",
                                                                     "test"]
    dataset = mlc.Dataset(jsonld=out / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors, dataset.metadata.ctx.issues.report()
    splits = [r["gold/split"] for r in dataset.records(record_set="gold")]
    assert sorted(splits) == sorted([b"train"] * 7 + [b"validation"] * 3 + [b"test"] * 4)


def test_a_split_added_to_a_folder_and_refusals(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset",
                   "--split", "train=alpha,beta")
    assert done.status == 0 and "6 item(s) in no split" in done.err  # gamma, delta
    before = (out / "data" / "gold-train.jsonl").read_bytes()
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--add",
                   "--split", "test=gamma")
    assert done.status == 0, done.err
    assert "in no split" not in done.err  # the others are in the folder's train split
    assert (out / "data" / "gold-train.jsonl").read_bytes() == before
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))
    assert {name: split.num_rows for name, split in gold.items()} == {"train": 8, "test": 4}
    again = simrate(capsys, "export", project, out, "--format", "dataset", "--add",
                    "--split", "test=delta")
    assert again.status == 2 and "has this split already" in again.err
    for args, words in ((("--split", "a=alpha", "--split", "b=alpha"), "both"),
                        (("--split", "a=alpha", "--split", "b"), "NAME=DATASET"),
                        (("--split", "a=nosuch"), "no item has dataset 'nosuch'"),
                        (("--add", "--split", "x=delta", "--columns", "hf"), "fields differ")):
        done = simrate(capsys, "export", project, out, "--format", "dataset", *args)
        assert done.status == 2 and words in done.err, (args, done.err)
        assert done.err.count("\n") == 1
    assert sorted(p.name for p in (out / "data").iterdir()) == [
        "gold-test.jsonl", "gold-train.jsonl", "ratings-test.jsonl", "ratings-train.jsonl"]


def test_a_re_export_keeps_the_authors_section_byte_for_byte(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    assert simrate(capsys, "export", project, out, "--format", "dataset").status == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- simrate:author -->", "<!-- /simrate:author -->"
    assert card.count(start) == 1 and card.count(end) == 1
    mine = ("\n## Motivation\n\nWe wanted pairs about \u00e9t\u00e9 | and `code`.\r\n"
            "Trailing spaces   \n\n")
    head, rest = card.split(start)
    (out / "README.md").write_text(head + start + mine + end + rest.split(end)[1],
                                   encoding="utf-8", newline="")
    (out / "LICENSE").write_text("mine\n")
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--split", "test")
    assert done.status == 0, done.err
    again = (out / "README.md").read_bytes()
    assert (start + mine + end).encode() in again
    assert (out / "LICENSE").read_text() == "mine\n"  # not simrate's: left alone
    assert sorted(p.name for p in (out / "data").iterdir()) == ["gold-test.jsonl",
                                                                "ratings-test.jsonl"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_hf_column_names(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--columns", "hf")
    assert done.status == 0, done.err
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))["train"]
    assert gold.column_names[:3] == ["item_id", "sentence1", "sentence2"]
    assert "score" in gold.column_names and "left" not in gold.column_names
    assert gold.features["score"].dtype == "float64"
    dataset = mlc.Dataset(jsonld=out / "croissant.json")
    first = next(iter(dataset.records(record_set="gold")))
    assert first["gold/sentence1"] == b"A alpha text 0"


def test_gold_carries_n_mean_sd_and_grid_counts(tmp_path, capsys):
    project = _project(capsys, tmp_path)
    out = tmp_path / "out"
    assert simrate(capsys, "export", project, out, "--format", "dataset").status == 0
    first = _rows(out / "data" / "gold-train.jsonl")[1]  # alpha1: 1 and 1
    assert (first["n_ratings"], first["mean"], first["sd"], first["median"]) == (2, 1, 0, 1)
    assert first["count_1"] == 2 and first["count_0"] == 0 and first["count_5"] == 0


@pytest.mark.realdata
def test_a_01_grid_prints_exact_decimals(realdata, tmp_path, capsys):
    """USTS-U's four ratings per pair on a 0.1 grid: every score, mean, median and count
    in the folder is the decimal it stands for (no 0.30000000000000004)."""
    pairs = list(json.loads((realdata / "ustsu" / "dev.json").read_text(encoding="utf-8"))
                 .items())[:150]
    scale = tmp_path / "tenths.json"
    scale.write_text(json.dumps({"name": "tenths", "title": "USTS-U, 0 to 5 in tenths",
                                 "low": 0, "high": 5, "step": 0.1}))
    project = tmp_path / "u.simrate"
    assert simrate(capsys, "new", project, "--scale", scale).status == 0
    items, ratings = ["id\tleft\tright\tdataset"], ["item_id,annotator,score"]
    for key, pair in pairs:
        items.append(f"{key}\t{pair['s1']}\t{pair['s2']}\t{pair['source']}")
        ratings += [f"{key},rater {n},{score}"
                    for n, score in enumerate(pair["raw_annotation"])]
    (tmp_path / "items.tsv").write_text("\n".join(items) + "\n", encoding="utf-8")
    (tmp_path / "r.csv").write_text("\n".join(ratings) + "\n", encoding="utf-8")
    for name in ("items.tsv", "r.csv"):
        done = simrate(capsys, "import", project, tmp_path / name)
        assert done.status == 0, done.err
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset",
                   "--allow-unresolved", "--columns", "hf")
    assert done.status == 0, done.err
    data = b"".join(p.read_bytes() for p in (out / "data").iterdir())
    assert not re.search(rb"\d\.\d*(0000|9999)\d", data)  # no binary noise anywhere
    gold = _rows(out / "data" / "gold-train.jsonl")
    raw = dict(pairs)
    for row in gold:
        scores = raw[row["item_id"]]["raw_annotation"]
        assert row["n_ratings"] == 4
        assert row["mean"] == round(sum(scores) / 4, 4)
        counts = {k: v for k, v in row.items() if k.startswith("count_") and v}
        assert sum(counts.values()) == 4
        assert all(f"count_{s:g}".replace(".", "_") in counts for s in scores)
    rated = _rows(out / "data" / "ratings-train.jsonl")
    assert {r["score"] for r in rated} <= {round(x / 10, 1) for x in range(51)}
    loaded = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))["train"]
    assert loaded.num_rows == len(pairs) and "count_0_3" in loaded.column_names
