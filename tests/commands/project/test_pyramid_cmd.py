"""`simrate pyramid` end to end, and importing a pyramid into a project."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET

import pytest

from simrate.core.pyramid.pairs import STATISTICS_KEYS
from simrate.services.exports.pyramid_export import BINARY_COLUMNS, RANKING_COLUMNS
from tests.cli.helpers import simrate
from tests.support.pyramid_xml import SpecScu, ducview_xml


def read_tsv(path) -> list[dict[str, str]]:
    """Rows of a TSV file written by the command (csv quoting)."""
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def header(path) -> list[str]:
    """The first row of a TSV file."""
    with open(path, encoding="utf-8", newline="") as stream:
        return next(csv.reader(stream, delimiter="\t"))


def copy_of_sample(tmp_path, sample_data, topic: str):
    """The sample pyramid under another topic id (as a second DUC topic would be)."""
    text = (sample_data / "D9901.pyr").read_text(encoding="utf-8").replace("D9901", topic)
    path = tmp_path / f"{topic}.pyr"
    path.write_text(text, encoding="utf-8")
    return path


def test_binary_test_and_statistics_that_add_up(tmp_path, sample_data, capsys):
    second = copy_of_sample(tmp_path, sample_data, "D9907")
    out = tmp_path / "pairs.tsv"
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", second, "--out", out, "--json")
    assert result.status == 0, result.err
    stats = result.json()
    assert tuple(stats) == STATISTICS_KEYS
    rows = read_tsv(out)
    assert tuple(header(out)) == BINARY_COLUMNS
    assert stats["pyramids"] == 2
    assert stats["positive_pairs"] == sum(r["label"] == "1" for r in rows)
    assert stats["negative_pairs"] == sum(r["label"] == "0" for r in rows)
    assert stats["parts"] == stats["parts_exact"] + stats["parts_recovered"] + stats["parts_lost"]
    assert {r["topic"] for r in rows} == {"D9901", "D9907"}
    assert len({(r["topic"], r["pair_id"]) for r in rows}) == len(rows)
    for row in rows:
        assert (row["left_scu"] == row["right_scu"]) == (row["label"] == "1")
        assert row["left"] != row["right"]
    # the sample's counts, read off the file by hand: 12 SCUs, 31 contributors, 33 parts
    assert (stats["scus"], stats["contributors"], stats["parts"]) == (24, 62, 66)


def test_ranking_test(tmp_path, sample_data, capsys):
    out = tmp_path / "questions.tsv"
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", out,
                     "--test", "ranking", "--json")
    assert result.status == 0, result.err
    rows = read_tsv(out)
    assert tuple(header(out)) == RANKING_COLUMNS
    assert len(rows) == result.json()["questions"] > 0
    for row in rows:
        choices = [row["answer"], row["distractor_1"], row["distractor_2"], row["distractor_3"]]
        assert len(set(choices)) == 4 and row["question"] not in choices


def test_text_output_without_json(tmp_path, sample_data, capsys):
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", tmp_path / "p.tsv")
    assert result.status == 0
    assert "wrote" in result.out and "pairs" in result.out


def test_same_seed_same_file_other_seed_same_rows(tmp_path, sample_data, capsys):
    outs = [tmp_path / f"{name}.tsv" for name in ("a", "b", "c")]
    for out, seed in zip(outs, (3, 3, 4), strict=True):
        assert simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", out,
                       "--seed", seed).status == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()
    assert outs[0].read_bytes() != outs[2].read_bytes()
    ids = [sorted(r["pair_id"] for r in read_tsv(out)) for out in outs]
    assert ids[0] == ids[2]


def test_thresholds_are_options(tmp_path, sample_data, capsys):
    out = tmp_path / "p.tsv"
    base = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", out, "--json").json()
    strict = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", out, "--json",
                     "--min-shared", 50).json()
    loose = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", out, "--json",
                    "--min-shared", 2, "--min-words", 1).json()
    assert base["negative_pairs"] > 0 and strict["negative_pairs"] == 0
    assert loose["negative_pairs"] > base["negative_pairs"]
    assert loose["positive_pairs"] >= base["positive_pairs"]


def test_bad_input_fails_cleanly_and_keeps_the_old_output(tmp_path, sample_data, capsys):
    out = tmp_path / "pairs.tsv"
    out.write_text("previous good output\n")
    bad = tmp_path / "notes.pyr"
    bad.write_text("<pyramid>\n <text>\n  <line>unclosed\n")
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", bad, "--out", out)
    assert result.status == 2
    assert result.err.startswith(f"simrate: error: {bad}:")
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    assert out.read_text() == "previous good output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.pyr", "pairs.tsv"]


@pytest.mark.parametrize("options, message", [
    (["--min-words", "0"], "--min-words"),
    (["--min-shared", "-1"], "--min-shared"),
])
def test_bad_thresholds_are_refused(tmp_path, sample_data, capsys, options, message):
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", tmp_path / "x.tsv",
                     *options)
    assert result.status == 2 and message in result.err


def test_two_files_of_one_topic_are_refused(tmp_path, sample_data, capsys):
    again = copy_of_sample(tmp_path, sample_data, "D9901")
    result = simrate(capsys, "pyramid", sample_data / "D9901.pyr", again,
                     "--out", tmp_path / "x.tsv")
    assert result.status == 2 and "topic D9901" in result.err


def test_warnings_go_to_stderr_and_json_stays_alone_on_stdout(tmp_path, capsys):
    summaries = {"D9908.M.100.A.A": ["The ferry resumed service after the long strike ended."]}
    scus = [SpecScu("1", "The ferry resumed service", [
        [("D9908.M.100.A.A", "The ferry resumed service after the long strike")]])]
    xml = ducview_xml(summaries, scus).replace(
        'part label="The ferry resumed service after the long strike"',
        'part label="A part the text does not hold anywhere"')
    path = tmp_path / "D9908.pyr"
    path.write_text(xml)
    result = simrate(capsys, "pyramid", path, "--out", tmp_path / "x.tsv", "--json")
    assert result.status == 0
    assert result.json()["parts_lost"] == 1
    assert "simrate: warning:" in result.err and "not found" in result.err


def test_import_a_pyramid_into_a_project(tmp_path, sample_data, capsys):
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    pairs = tmp_path / "pairs.tsv"
    simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", pairs)
    expected = {f"D9901:{r['pair_id']}" for r in read_tsv(pairs)}
    result = simrate(capsys, "import", project, sample_data / "D9901.pyr", "--format", "pyramid",
                     "--negatives", "all")
    assert result.status == 0, result.err
    again = simrate(capsys, "import", project, sample_data / "D9901.pyr", "--seed", "5",
                    "--negatives", "all")
    assert again.status == 0, again.err
    from simrate.core.project import Project

    with Project.open(project) as opened:
        items = opened.items()
    assert set(items["item_id"]) == expected  # same ids whatever the seed: nothing added twice
    assert set(items["dataset"]) == {"D9901"}


@pytest.mark.realdata
def test_real_pyramids_give_both_tests_with_counts_checked_against_the_xml(realdata, tmp_path,
                                                                         capsys):
    files = sorted((realdata / "pyramid").glob("*.pyr"))
    out = tmp_path / "pairs.tsv"
    result = simrate(capsys, "pyramid", *files, "--out", out, "--json")
    assert result.status == 0, result.err
    stats = result.json()
    scus = contributors = parts = exact = 0
    for path in files:  # an independent count with the standard library's parser
        root = ET.parse(path).getroot()
        text = "\n".join(line.text or "" for line in root.find("text").iter("line"))
        scus += len(root.findall("scu"))
        contributors += len(root.findall("scu/contributor"))
        for part in root.iter("part"):
            parts += 1
            exact += text[int(part.get("start")):int(part.get("end"))] == part.get("label")
    assert (stats["pyramids"], stats["scus"], stats["contributors"]) == (4, scus, contributors)
    assert (stats["parts"], stats["parts_exact"]) == (parts, exact)
    assert stats["parts_lost"] == 0 and stats["parts_recovered"] == parts - exact
    assert stats["positive_pairs"] + stats["negative_pairs"] == len(read_tsv(out))
    ranking = simrate(capsys, "pyramid", *files, "--out", tmp_path / "q.tsv", "--test", "ranking")
    assert ranking.status == 0
    assert len(read_tsv(tmp_path / "q.tsv")) == stats["questions"] > 0
