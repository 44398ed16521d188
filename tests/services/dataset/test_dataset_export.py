"""`simrate export PROJECT DIR --format dataset` read back by the real clients: `datasets`,
`huggingface_hub`'s DatasetCard and `mlcroissant`; the card's figures against `simrate
agreement --json` and `simrate machine --json`; pseudonyms; a round trip; refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets  # noqa: E402,I001 - after dataset_fixtures set the offline switches
import mlcroissant as mlc  # noqa: E402
import pytest
from huggingface_hub import DatasetCard  # noqa: E402

from tests.cli.helpers import simrate
from tests.services.dataset.dataset_fixtures import PEOPLE, PLANTED, N, build_project

GOLD_TYPES = {"item_id": "string", "left": "string", "right": "string", "gold": "float64",
              "n_ratings": "int64", "sd": "float64", "spread": "float64", "flagged": "bool",
              "resolution": "string", "adjudicated_by": "string", "check_item": "bool",
              "meta_topic": "string", "reference": "float64"}
RATING_TYPES = {"item_id": "string", "rater": "string", "rater_kind": "string",
                "score": "float64", "seconds": "float64", "skipped": "bool", "excluded": "bool"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(project, its folder as published by default, the same with names and notes kept)."""
    capsys = _Capture()
    folder = tmp_path_factory.mktemp("dataset")
    project = build_project(capsys, folder)
    out = folder / "published"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--split", "test",
                   "--license", "CC-BY-4.0", "--keep-column", "topic")
    assert done.status == 0, done.err
    named = folder / "named"
    done = simrate(capsys, "export", project, named, "--format", "dataset", "--split", "test",
                   "--keep-rater-names", "--with-notes", "--keep-column", "topic")
    assert done.status == 0, done.err
    return project, out, named


class _Capture:
    """Stands in for capsys in a module-scoped fixture (the output is not looked at)."""

    def readouterr(self):  # noqa: D102 - the capsys protocol
        return type("Captured", (), {"out": "", "err": ""})


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def card_json(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    return json.loads(re.search(r"## Figures as JSON.*?```json\n(.*?)\n```", text, re.S)[1])


def test_datasets_loads_both_configurations(exported, tmp_path):
    _, out, _ = exported
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "cache"))
    ratings = datasets.load_dataset(str(out), "ratings", cache_dir=str(tmp_path / "cache"))
    assert list(gold) == ["test"] and list(ratings) == ["test"]
    default = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert default["test"].column_names == gold["test"].column_names  # gold is the default
    assert gold["test"].num_rows == N
    assert ratings["test"].num_rows == len(rows_of(out / "data" / "ratings-test.jsonl"))
    assert ratings["test"].num_rows == N * 3 + 20 + N  # people, crowd, machine
    features = gold["test"].features
    assert {k: features[k].dtype for k in GOLD_TYPES} == GOLD_TYPES
    features = ratings["test"].features
    assert {k: features[k].dtype for k in RATING_TYPES} == RATING_TYPES
    first = gold["test"][0]
    assert first["item_id"] == "d:1" and first["resolution"] == "adjudicated"
    assert first["gold"] == 4.5 and first["adjudicated_by"] == "adjudicator-01"
    assert first["flagged"] is True and first["meta_topic"] == "topic-1"
    assert gold["test"][4]["check_item"] is True
    kinds = {r["rater"]: r["rater_kind"] for r in ratings["test"]}
    assert kinds == {"rater-01": "person", "rater-02": "person", "rater-03": "person",
                     "crowd-0001": "crowd", "crowd-0002": "crowd", "machine-01": "machine"}


def test_card_metadata_reads_with_huggingface_hub(exported):
    _, out, _ = exported
    card = DatasetCard.load(out / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-4.0" and data["pretty_name"] == "Planted study"
    assert data["language"] == ["en"] and data["task_categories"] == ["sentence-similarity"]
    assert data["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in data["configs"]] == ["gold", "ratings"]
    assert data["configs"][0]["data_files"] == [{"split": "test",
                                                  "path": "data/gold-test.jsonl"}]
    assert "## Scale and guidelines" in card.text and "Mostly equivalent" in card.text


def test_croissant_validates_and_its_records_equal_the_files(exported):
    _, out, _ = exported
    dataset = mlc.Dataset(jsonld=out / "croissant.json")
    issues = dataset.metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
    for name in ("gold", "ratings"):
        expected = rows_of(out / "data" / f"{name}-test.jsonl")
        records = list(dataset.records(record_set=name))
        assert len(records) == len(expected)
        for got, want in zip(records, expected, strict=True):
            for key, value in want.items():
                seen = got[f"{name}/{key}"]
                seen = seen.decode("utf-8") if isinstance(seen, bytes) else seen
                if isinstance(value, float):  # pandas reads JSON floats to ~15 digits
                    assert seen == pytest.approx(value, rel=1e-12), (name, key)
                else:
                    assert seen == value, (name, key)


def test_card_figures_are_those_of_the_commands(exported, capsys):
    project, out, named = exported
    mapping = {}
    for pseudo, real in zip(rows_of(out / "data" / "ratings-test.jsonl"),
                            rows_of(named / "data" / "ratings-test.jsonl"), strict=True):
        assert mapping.setdefault(real["rater"], pseudo["rater"]) == pseudo["rater"]

    def renamed(text: str) -> object:
        for real, pseudo in sorted(mapping.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(json.dumps(real), json.dumps(pseudo))
        return json.loads(text)

    figures = card_json(out)
    every = simrate(capsys, "agreement", project, "--level", "all", "--ci", "--json")
    machines = simrate(capsys, "machine", project, "--json")
    assert figures["agreement"] == renamed(every.out)
    assert figures["machines"] == renamed(machines.out)
    assert card_json(named)["agreement"] == json.loads(every.out)
    text = (out / "README.md").read_text(encoding="utf-8")
    report = json.loads(every.out)
    for level in ("interval", "ordinal", "ratio", "nominal"):
        alpha, calm = report["alpha"][level], report["alpha_unadjudicated"][level]
        low, high = report["ci95"][level]
        assert f" | {alpha:.3f} | {calm:.3f} | {low:.3f} to {high:.3f} |" in text, level
    assert "| interval (project's level) |" in text
    rest = report["pearson_vs_rest"]
    assert all(f"{r:.3f}" in text for r in rest.values())
    assert "| person | 3 | 40 | 120 | 0 |" in text and "| crowd | 2 | 10 | 20 | 0 |" in text
    assert "| flagged by the rule | 1 |" in text and "| flagged and adjudicated | 1 |" in text
    assert "crowd-0002 (crowd)" in text and "Check items of known score mixed in: 1." in text
    assert "## Machine raters" in text and "| machine-01 |" in text


def test_no_name_id_login_or_note_anywhere_by_default(exported):
    _, out, named = exported
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} == {"README.md", "croissant.json", "gold-test.jsonl",
                                      "ratings-test.jsonl"}
    forms = {form for planted in PLANTED for form in (planted, planted.lower())}
    forms |= {part for person in PEOPLE for part in person.split()} | {"Quentin", "xyzzy"}
    for path in files:
        data = path.read_bytes()
        for form in forms:
            assert form.encode() not in data, (path.name, form)
    everything = b"".join(p.read_bytes() for p in named.rglob("*") if p.is_file())
    for planted in PLANTED:  # the same folder with names and notes asked for has them all
        assert planted.encode() in everything, planted


def test_pseudonyms_are_stable_across_exports(exported, tmp_path, capsys):
    project, out, _ = exported
    again = tmp_path / "again"
    assert simrate(capsys, "export", project, again, "--format", "dataset", "--split",
                   "test", "--keep-column", "topic").status == 0
    for name in ("gold-test.jsonl", "ratings-test.jsonl"):
        assert (again / "data" / name).read_bytes() == (out / "data" / name).read_bytes()


def test_gold_reimported_gives_the_same_items_and_scores(exported, tmp_path, capsys):
    _, out, _ = exported
    copy = tmp_path / "gold.jsonl"
    copy.write_bytes((out / "data" / "gold-test.jsonl").read_bytes())
    fresh = tmp_path / "fresh.simrate"
    assert simrate(capsys, "new", fresh, "--scale", "sts").status == 0
    done = simrate(capsys, "import", fresh, copy)
    assert done.status == 0, done.err
    from simrate.core.project import Project

    rows = rows_of(copy)
    with Project.open(fresh) as project:
        items = project.items()
    assert items["item_id"].tolist() == [r["item_id"] for r in rows]
    assert items["left"].tolist() == [r["left"] for r in rows]
    assert items["right"].tolist() == [r["right"] for r in rows]
    assert items["dataset"].tolist() == [r["dataset"] for r in rows]
    assert items["reference"].tolist() == [r["gold"] for r in rows]


def _refused(result, code: int, *words: str) -> None:
    assert result.status == code, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("simrate: error: ")
    assert "Traceback" not in result.err and "Error:" not in result.err
    for word in words:
        assert word in result.err


def test_refusals_write_nothing(tmp_path, capsys):
    project = build_project(capsys, tmp_path, adjudicate=False)
    # experts and crowd workers rate d:1: under `auto` its flag would be the crowd's (not
    # stopping an export); the range rule makes it one that waits for a verdict
    assert simrate(capsys, "flagged", project, "--rule", "range").status == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    out = tmp_path / "out"
    _refused(simrate(capsys, "export", project, out, "--format", "dataset"), 3,
             "1 flagged item not adjudicated")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    _refused(simrate(capsys, "export", project, full, "--format", "dataset",
                     "--allow-unresolved"), 2, "not empty")
    _refused(simrate(capsys, "export", project, tmp_path / "items.tsv", "--format", "dataset",
                     "--allow-unresolved"), 2, "not a folder")
    _refused(simrate(capsys, "export", project, tmp_path / "no" / "such", "--format",
                     "dataset", "--allow-unresolved"), 2, "does not exist")
    _refused(simrate(capsys, "export", project, project, "--format", "dataset"), 2,
             "project file")
    _refused(simrate(capsys, "export", project, out, "--format", "dataset", "--split",
                     "no/slash", "--allow-unresolved"), 2, "--split")
    _refused(simrate(capsys, "export", project, out, "--format", "dataset", "--license",
                     "CC BY 4.0", "--allow-unresolved"), 2, "--license")
    _refused(simrate(capsys, "export", project, tmp_path / "g.tsv", "--split", "dev"), 2,
             "--split belongs to --format dataset")
    _refused(simrate(capsys, "export", project, full), 2, "--format dataset")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + ["full"])
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    done = simrate(capsys, "export", project, empty, "--format", "dataset",
                   "--allow-unresolved")
    assert done.status == 0 and "warning: exported with 1 flagged" in done.err
    gold = rows_of(empty / "data" / "gold-train.jsonl")
    assert gold[0]["resolution"] == "unresolved" and gold[0]["flagged"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_an_interrupted_export_leaves_no_folder(tmp_path, capsys):
    from simrate.core.project import Project
    from simrate.services.dataset.dataset_export import DatasetOptions
    from simrate.services.exports.export import export_project

    project_path = build_project(capsys, tmp_path)
    out = tmp_path / "out"

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with Project.open(project_path) as project, pytest.raises(KeyboardInterrupt):
        export_project(project, out, "dataset", progress=stop, dataset=DatasetOptions())
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_people_count_in_card_matches_files(exported):
    _, out, _ = exported
    ratings = rows_of(out / "data" / "ratings-test.jsonl")
    people = {r["rater"] for r in ratings if r["rater_kind"] == "person"}
    assert len(people) == len(PEOPLE)
    excluded = {r["rater"] for r in ratings if r["excluded"]}
    assert excluded == {"crowd-0002"}


@pytest.mark.realdata
def test_sts_2012_msrvid_as_a_dataset_folder(realdata, tmp_path):
    from simrate.core.project import Project
    from simrate.formats.readers.sts import read_sts
    from simrate.services.dataset.dataset_export import DatasetOptions
    from simrate.services.exports.export import export_project
    from tests.formats.output.test_export_realdata import FINE_STS_SCALE, rate_with_reference

    items = read_sts(realdata / "sts2012" / "STS.input.MSRvid.txt")
    scale = tmp_path / "sts-fine.json"
    scale.write_text(json.dumps(FINE_STS_SCALE))
    out = tmp_path / "msrvid"
    with Project.create(tmp_path / "msrvid.simrate", scale=scale) as project:
        project.import_items(items, source="STS.input.MSRvid.txt")
        rate_with_reference(project, items, ("Annelise Brandvold", "Bob Tuckerman"))
        report = export_project(project, out, "dataset",
                                dataset=DatasetOptions(license="CC-BY-4.0",
                                                       title="STS 2012 MSRvid"))
    assert (report.format, report.items, report.sources) == ("dataset", 750, {"mean": 750})
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "cache"))["train"]
    assert gold.num_rows == 750 and set(gold["dataset"]) == {"MSRvid"}
    official = [float(x) for x in
                (realdata / "sts2012" / "STS.gs.MSRvid.txt").read_text().split()]
    assert gold["gold"] == pytest.approx(official, abs=1e-9)
    assert gold["gold"] == pytest.approx(items["reference"].tolist(), abs=1e-12)
    ratings = datasets.load_dataset(str(out), "ratings", cache_dir=str(tmp_path / "cache"))
    assert ratings["train"].num_rows == 1500
    assert set(ratings["train"]["rater"]) == {"rater-01", "rater-02"}
    records = list(mlc.Dataset(jsonld=out / "croissant.json").records(record_set="gold"))
    assert len(records) == 750 and records[0]["gold/item_id"] == b"MSRvid:1"
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "Annelise" not in text and "| interval (project's level) | 1.000 |" in text


def test_title_and_language_reach_the_card_and_croissant(exported, tmp_path, capsys):
    project, _, _ = exported
    out = tmp_path / "titled"
    title = 'Paraphrases: "STS" \u00e9t\u00e9 \U0001f600 | line, two: #1 ---'
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--title", title,
                   "--language", "de", "--license", "other")
    assert done.status == 0, done.err
    data = DatasetCard.load(out / "README.md").data.to_dict()
    assert data["pretty_name"] == title and data["language"] == ["de"]
    assert data["license"] == "other"
    document = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    assert document["name"] == title and document["inLanguage"] == "de"
    assert "license" not in document  # `other` names no licence
    assert not mlc.Dataset(jsonld=out / "croissant.json").metadata.ctx.issues.errors
    bad = simrate(capsys, "export", project, tmp_path / "x", "--format", "dataset",
                  "--language", "English")
    _refused(bad, 2, "--language")
    broken = simrate(capsys, "export", project, tmp_path / "x", "--format", "dataset",
                     "--title", "line\u2028two")  # a line separator is no part of a title
    _refused(broken, 2, "--title")
    assert not (tmp_path / "x").exists()


def test_pseudonyms_widen_past_their_digits_and_keep_join_order():
    from simrate.services.dataset.pseudonyms import Pseudonyms

    people = [f"p{n}" for n in range(120)]
    workers = [f"W{n}" for n in range(3)]
    names = Pseudonyms(people + workers, {**{p: "human" for p in people},
                                           **{w: "crowd" for w in workers}},
                       adjudicators=["p3", "boss", ""])
    assert names["p0"] == "rater-001" and names["p119"] == "rater-120"
    assert names["W2"] == "crowd-0003" and names.kind["W2"] == "crowd"
    assert names.of("p3") == "rater-004" and names.of("boss") == "adjudicator-01"
    assert names.of("") is None


def test_progress_counts_the_rows_of_both_files(exported, tmp_path):
    from simrate.core.project import Project
    from simrate.services.dataset.dataset_export import DatasetOptions
    from simrate.services.exports.export import export_project

    project_path, out, _ = exported
    told = []
    with Project.open(project_path) as project:
        export_project(project, tmp_path / "again", "dataset",
                       progress=lambda done, total: told.append((done, total)),
                       dataset=DatasetOptions(split="test"))
    total = N + len(rows_of(out / "data" / "ratings-test.jsonl"))
    assert told[-1] == (total, total) and (N, total) in told
    assert [d for d, _ in told] == sorted(d for d, _ in told)


def test_a_killed_exports_folder_is_swept_by_the_next(exported, tmp_path, capsys):
    import subprocess
    import sys

    from simrate.formats.output import leftovers

    project, _, _ = exported
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".published.simrate-export-{leftovers._HOST}-{dead}-abc123.part"
    (stale / "data").mkdir(parents=True)
    (stale / "data" / "gold-train.jsonl").write_text("{}\n")
    done = simrate(capsys, "export", project, tmp_path / "published", "--format", "dataset")
    assert done.status == 0, done.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["published"]


def test_a_project_without_ratings_gives_the_gold_configuration_only(tmp_path, capsys):
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    items = tmp_path / "items.tsv"
    items.write_text("id\tleft\tright\na\tx\ty\nb\tu\tv\n", encoding="utf-8")
    assert simrate(capsys, "import", project, items).status == 0
    out = tmp_path / "out"
    _refused(simrate(capsys, "export", project, out, "--format", "dataset"), 3,
             "2 items with no rating")
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--allow-unresolved")
    assert done.status == 0, done.err
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))["train"]
    assert gold["gold"] == [None, None] and gold["resolution"] == ["unrated", "unrated"]
    assert [c["config_name"] for c in DatasetCard.load(out / "README.md").data.configs] == \
        ["gold"]
    assert [r["name"] for r in json.loads((out / "croissant.json").read_text())["recordSet"]] \
        == ["splits", "gold"]
    empty = tmp_path / "empty.simrate"
    assert simrate(capsys, "new", empty, "--scale", "sts").status == 0
    _refused(simrate(capsys, "export", empty, tmp_path / "none", "--format", "dataset"), 2,
             "no items")


def test_source_fields_that_name_people_are_left_out(tmp_path, capsys):
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    items = tmp_path / "items.tsv"
    items.write_text("id\tleft\tright\ttopic\tworker_id\tcoded_as\tcomment\trating:Quillfeather\n"
                     "a\tx\ty\tt1\tA3QX9PLATFORMW1\tMargarethe Quillfeather\tsee Quentin\t4\n"
                     "b\tu\tv\tt2\tA3QX9PLATFORMW1\tsomeone\tok\t3\n", encoding="utf-8")
    assert simrate(capsys, "import", project, items).status == 0
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\na,Margarethe Quillfeather,3\n"
                       "b,Margarethe Quillfeather,2\n", encoding="utf-8")
    assert simrate(capsys, "import", project, ratings).status == 0
    keep = [arg for key in ("topic", "worker_id", "coded_as", "comment", "rating:Quillfeather")
            for arg in ("--keep-column", key)]
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", *keep)
    assert done.status == 0, done.err
    assert done.err.count("source field left out of the dataset") == 4
    data = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for planted in (b"A3QX9PLATFORMW1", b"Margarethe", b"Quillfeather", b"Quentin"):
        assert planted not in data, planted
    gold = rows_of(out / "data" / "gold-train.jsonl")
    assert [g["meta_topic"] for g in gold] == ["t1", "t2"] and "meta_coded_as" not in gold[0]
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "`worker_id: names raters or their scores (--keep-rater-names)`" in text
    assert "(a field named after a rater)" in text
    named = tmp_path / "named"
    assert simrate(capsys, "export", project, named, "--format", "dataset",
                   "--keep-rater-names", "--with-notes", *keep).status == 0
    first = rows_of(named / "data" / "gold-train.jsonl")[0]
    assert first["meta_worker_id"] == "A3QX9PLATFORMW1" and first["meta_comment"] == "see Quentin"
    assert first["meta_rating_Quillfeather"] == "4"
    bare = tmp_path / "bare"
    done = simrate(capsys, "export", project, bare, "--format", "dataset",
                   "--keep-rater-names", "--with-notes")
    assert done.status == 0 and done.err.count("source field left out of the dataset") == 5
    assert not [k for k in rows_of(bare / "data" / "gold-train.jsonl")[0] if "meta" in k]


@pytest.mark.realdata
def test_pit_2015_dev_keeps_the_extra_fields_asked_for_with_their_types(realdata, tmp_path, capsys):
    from simrate.core.project import Project
    from simrate.formats.readers.pit import read_pit
    from tests.formats.output.test_export_realdata import rate_with_reference

    items = read_pit(realdata / "pit2015" / "dev.head300.data")
    project = tmp_path / "pit.simrate"
    with Project.create(project, scale="sts") as opened:
        opened.import_items(items, source="dev.head300.data")
        rate_with_reference(opened, items, ("Tweet Reader One", "Tweet Reader Two"))
    out = tmp_path / "pit"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--split",
                   "validation", "--keep-column", "topic_id", "--keep-column", "votes_yes")
    assert done.status == 0, done.err
    gold = datasets.load_dataset(str(out), "gold", cache_dir=str(tmp_path / "c"))["validation"]
    assert gold.num_rows == 300 and gold["genre"][0] == "A Walk To Remember"
    assert gold["meta_topic_id"][0] == "17" and gold["meta_votes_yes"][0] == 1
    assert gold.features["meta_votes_yes"].dtype == "int64"  # a number in the source
    assert "meta_votes_no" not in gold.features  # not asked for
    assert gold["gold"] == pytest.approx(items["reference"].tolist())
    records = list(mlc.Dataset(jsonld=out / "croissant.json").records(record_set="gold"))
    assert [r["gold/meta_topic_id"].decode() for r in records] == gold["meta_topic_id"]
    assert b"Tweet Reader" not in b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())


def test_reads_inside_a_snapshot_see_one_state_while_another_connection_rates(tmp_path):
    from simrate.core.project import Project
    from tests.support.export_fixtures import make_project

    path = tmp_path / "p.simrate"
    make_project(path).close()
    with Project.open(path) as reader, Project.open(path) as rater:
        before = len(reader.ratings())
        with reader.snapshot():
            assert len(reader.ratings()) == before
            rater.rate("t:2", "a late rater", 2.0)  # commits on its own connection
            assert len(reader.ratings()) == before
            long, _, _ = reader.agreement_columns()
            assert "a late rater" not in long.raters
        assert len(reader.ratings()) == before + 1
