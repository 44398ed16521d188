"""The published folder's metadata: SPDX licences, Croissant 1.1 with its Responsible-AI
fields, creators, citation, url and version, read back by `mlcroissant` and
`huggingface_hub`'s DatasetCard."""

from __future__ import annotations

import json

import mlcroissant as mlc
import pytest
from huggingface_hub import DatasetCard

from tests.cli.helpers import simrate
from tests.services.dataset.dataset_fixtures import build_project


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from tests.services.dataset.test_dataset_export import _Capture

    return build_project(_Capture(), tmp_path_factory.mktemp("metadata"))


def _one_line_refusal(result, *words: str) -> None:
    assert result.status == 2, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("simrate: error: ")
    assert "Traceback" not in result.err
    for word in words:
        assert word in result.err


@pytest.mark.parametrize("licence", ["foo", "MIT-9", "CC-BY-SA-5.0", "CC BY 4.0", "MIT OR",
                                     "(MIT", ""])
def test_a_licence_that_is_not_spdx_is_refused_in_one_line(project, tmp_path, capsys,
                                                            licence):
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--license", licence)
    _one_line_refusal(done, "--license")
    assert not out.exists()


@pytest.mark.parametrize(("given", "card", "details", "urls"), [
    ("cc-by-4.0", "cc-by-4.0", None, "https://spdx.org/licenses/CC-BY-4.0.html"),
    ("MIT OR Apache-2.0", "other", "MIT OR Apache-2.0",
     ["https://spdx.org/licenses/MIT.html", "https://spdx.org/licenses/Apache-2.0.html"]),
    ("GPL-2.0+", "gpl-2.0-or-later", None, "https://spdx.org/licenses/GPL-2.0-or-later.html"),
])
def test_an_spdx_licence_reaches_card_and_croissant(project, tmp_path, capsys, given, card,
                                                    details, urls):
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--license", given)
    assert done.status == 0, done.err
    data = DatasetCard.load(out / "README.md").data.to_dict()
    assert data["license"] == card and data.get("license_details") == details
    document = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    assert document["license"] == urls
    issues = mlc.Dataset(jsonld=out / "croissant.json").metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()


CITATION = """@inproceedings{ortega2026planted,
  title = {A Planted Study of Graded Similarity},
  author = {Ortega, Josefina and Lindqvist, Ebbe},
  booktitle = {Proceedings of Somewhere},
  year = {2026}
}
"""


@pytest.fixture(scope="module")
def described(project, tmp_path_factory):
    """The folder exported with creators, a citation file, a url and a version."""
    from tests.services.dataset.test_dataset_export import _Capture

    folder = tmp_path_factory.mktemp("described")
    bib = folder / "cite.bib"
    bib.write_text(CITATION, encoding="utf-8")
    out = folder / "out"
    done = simrate(_Capture(), "export", project, out, "--format", "dataset", "--license",
                   "CC-BY-4.0", "--creator", "Josefina Ortega", "--creator", "Ebbe Lindqvist",
                   "--citation", bib, "--url", "https://example.org/planted", "--version",
                   "2.1.0")
    assert done.status == 0, done.err
    return out


def test_croissant_11_carries_creators_citation_url_version_and_rai(described):
    dataset = mlc.Dataset(jsonld=described / "croissant.json")
    issues = dataset.metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
    meta = dataset.metadata
    assert str(meta.ctx.conforms_to.value) == "http://mlcommons.org/croissant/1.1"
    assert [c.name for c in meta.creators] == ["Josefina Ortega", "Ebbe Lindqvist"]
    assert [p.name for p in meta.publisher] == ["Josefina Ortega", "Ebbe Lindqvist"]
    assert meta.cite_as.strip() == CITATION.strip()
    assert meta.url == "https://example.org/planted" and meta.version == "2.1.0"
    # what the project knows, in the RAI vocabulary
    assert "3 person rater(s)" in meta.data_collection and "2 crowd" in meta.data_collection
    assert meta.data_collection_type == ["Manual human curation", "Crowdsourcing",
                                         "Machine annotation"]
    assert "counted ratings per item" in meta.annotations_per_item
    assert any("Krippendorff's alpha (interval)" in a for a in meta.data_annotation_analysis)
    assert any("1 of 40 items flagged" in a for a in meta.data_annotation_analysis)
    assert any("crowd-0002" in a for a in meta.data_annotation_analysis)
    assert any("in steps of 0.25" in p for p in meta.data_annotation_protocol)
    assert len(meta.data_annotation_platform) == 3
    assert meta.data_collection_timeframe  # first and last rating (one day here: one)
    assert meta.machine_annotation_tools[0].startswith("machine-01: a machine rater")
    assert "pseudonyms" in meta.personal_sensitive_information[0]
    document = json.loads((described / "croissant.json").read_text(encoding="utf-8"))
    assert b"zorbamodel" not in (described / "croissant.json").read_bytes()
    first, last = document["rai:dataCollectionTimeFrame"]
    assert first <= last


def test_record_sets_have_keys_a_reference_and_the_split(described):
    document = json.loads((described / "croissant.json").read_text(encoding="utf-8"))
    sets = {r["name"]: r for r in document["recordSet"]}
    assert sets["gold"]["key"] == [{"@id": "gold/split"}, {"@id": "gold/item_id"}]
    assert sets["ratings"]["key"] == [{"@id": "ratings/split"}, {"@id": "ratings/item_id"},
                                      {"@id": "ratings/rater"}]
    item = next(f for f in sets["ratings"]["field"] if f["name"] == "item_id")
    assert item["references"] == {"field": {"@id": "gold/item_id"}}
    assert sets["splits"]["dataType"] == "cr:Split"
    assert sets["splits"]["data"] == [{"splits/name": "train"}]
    dataset = mlc.Dataset(jsonld=described / "croissant.json")
    ratings = list(dataset.records(record_set="ratings"))
    assert {r["ratings/split"] for r in ratings} == {b"train"}
    gold_ids = {r["gold/item_id"] for r in dataset.records(record_set="gold")}
    assert {r["ratings/item_id"] for r in ratings} <= gold_ids


def test_card_has_citation_creators_and_hub_fields(described):
    card = DatasetCard.load(described / "README.md")
    data = card.data.to_dict()
    assert data["annotations_creators"] == ["expert-generated", "crowdsourced",
                                            "machine-generated"]
    assert data["source_datasets"] == ["original"]
    assert "## Citation" in card.text and "@inproceedings{ortega2026planted," in card.text


def test_a_made_citation_without_citation_file(project, tmp_path, capsys):
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--creator",
                   "Ebbe Lindqvist")
    assert done.status == 0, done.err
    document = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    cite = document["citeAs"]
    assert cite.startswith("@misc{planted_study_") and "author = {Ebbe Lindqvist}" in cite
    assert "version = {1.0.0}" in cite and "url" not in document


@pytest.mark.parametrize(("args", "words"), [
    (("--version", "v2"), "--version"), (("--url", "example.org"), "--url"),
    (("--citation", "MISSING"), "no such file"), (("--citation", "NOTBIB"), "BibTeX"),
    (("--add",), "--add"), (("--columns", "wide"), "--columns")])
def test_bad_metadata_options_are_refused_in_one_line(project, tmp_path, capsys, args,
                                                       words):
    (tmp_path / "NOTBIB").write_text("just a title\n", encoding="utf-8")
    args = [str(tmp_path / a) if a in ("MISSING", "NOTBIB") else a for a in args]
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", *args)
    _one_line_refusal(done, words)
    assert not out.exists()
