"""Reading DUCView pyramids: the sample, .pan files, real-file quirks, items for a project."""

from __future__ import annotations

import math

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import ITEM_COLUMNS
from simrate.core.pyramid.model import EXACT, LOST, RECOVERED
from simrate.formats.pyramids.pyramid import read_pyramid
from simrate.formats.pyramids.pyramid_project import parse_negatives, read_pyramid_items
from tests.support.pyramid_xml import D9901_SCUS, D9901_SUMMARIES, SpecScu, d9901_xml, ducview_xml

PAN_HEAD = """<?xml version="1.0"?>
<!DOCTYPE peerAnnotation [
 <!ELEMENT peerAnnotation (pyramid,annotation)>
 <!ELEMENT annotation (text,peerscu+)>
 <!ELEMENT peerscu (contributor)*>
 <!ATTLIST peerscu uid CDATA #REQUIRED
                   label CDATA #REQUIRED>
 <!ELEMENT pyramid (startDocumentRegEx?,text,scu*)>
 <!ELEMENT text (line*)>
 <!ELEMENT line (#PCDATA)>
 <!ELEMENT scu (contributor)+>
 <!ATTLIST scu uid CDATA #REQUIRED label CDATA #REQUIRED>
 <!ELEMENT contributor (part)+>
 <!ATTLIST contributor label CDATA #REQUIRED>
 <!ELEMENT part EMPTY>
 <!ATTLIST part label CDATA #REQUIRED start CDATA #REQUIRED end CDATA #REQUIRED>
]>
<peerAnnotation>
"""
PAN_TAIL = """<annotation>
 <text>
  <line>A peer summary that mentions the footbridge.</line>
 </text>
 <peerscu uid="3" label="(4) A new footbridge over the Vask River in Brellmoor opened on 14 May">
  <contributor label="mentions the footbridge">
   <part label="mentions the footbridge" start="21" end="44"/>
  </contributor>
 </peerscu>
</annotation>
</peerAnnotation>
"""

SMALL_SUMMARIES = {
    " D9902-A.M.100.A.C": ["The harbour reopened after the storm.", "Fishing boats returned on Friday."],
    " D9902-A.M.100.A.F": ["After the storm the harbour opened again.", "Boats came back on Friday."],
}
SMALL_SCUS = [SpecScu("1", "The harbour reopened after the storm", [
    [(" D9902-A.M.100.A.C", "The harbour reopened after the storm")],
    [(" D9902-A.M.100.A.F", "After the storm the harbour opened again")],
])]


def write(tmp_path, name: str, content: str | bytes):
    """Write `content` to tmp_path/name and return the path."""
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def test_sample_is_read_with_its_quirks(sample_data):
    raw = (sample_data / "D9901.pyr").read_bytes()
    assert b"\r\n" in raw and b"&amp;" in raw  # the quirks are really in the file
    pyramid = read_pyramid(sample_data / "D9901.pyr")
    assert pyramid.topic == "D9901"
    assert [s.summary_id for s in pyramid.summaries] == list(D9901_SUMMARIES)
    assert len(pyramid.scus) == len(D9901_SCUS) == 12
    assert sum(s.weight for s in pyramid.scus) == sum(len(s.contributors) for s in D9901_SCUS)
    # one part crosses a line break with DUCView's short end offset; nothing is lost
    assert pyramid.part_counts() == {EXACT: 32, RECOVERED: 1, LOST: 0}
    assert "\r" not in pyramid.text
    brewery = next(s for s in pyramid.scus if s.uid == "8")
    assert brewery.label.startswith("Hollin & Sons")
    assert brewery.contributors[0].text == "Hollin & Sons, a local brewery, paid for the lighting"


def test_sample_contributors_map_to_the_summaries_they_were_written_from(sample_data):
    pyramid = read_pyramid(sample_data / "D9901.pyr")
    expected = [[parts[0][0] for parts in spec.contributors] for spec in D9901_SCUS]
    assert [[c.summary_id for c in s.contributors] for s in pyramid.scus] == expected


def test_sample_parts_out_of_order_and_across_a_line_break_read_in_text_order(sample_data):
    pyramid = read_pyramid(sample_data / "D9901.pyr")
    opened = next(s for s in pyramid.scus if s.uid == "3")
    assert [p.label for p in opened.contributors[3].parts] == [
        "opened a footbridge", "On 14 May the mayor of Brellmoor"]  # as listed in the file
    assert opened.contributors[3].text == "On 14 May the mayor of Brellmoor opened a footbridge"
    detour = next(s for s in pyramid.scus if s.uid == "9")
    assert detour.contributors[0].text == (
        "Schoolchildren had walked an extra three kilometres each day. That detour ended")


def test_pan_file_yields_its_embedded_pyramid(tmp_path, sample_data):
    pyramid_element = d9901_xml().split("<pyramid>", 1)[1].rsplit("</pyramid>", 1)[0]
    pan = write(tmp_path, "D9901.peer.pan",
                PAN_HEAD + "<pyramid>" + pyramid_element + "</pyramid>\n" + PAN_TAIL)
    from_pan = read_pyramid(pan)
    from_pyr = read_pyramid(sample_data / "D9901.pyr")
    assert from_pan.text == from_pyr.text
    assert [(s.uid, s.label, [c.text for c in s.contributors]) for s in from_pan.scus] == [
        (s.uid, s.label, [c.text for c in s.contributors]) for s in from_pyr.scus]


def test_update_task_ids_without_regex_give_the_topic_and_summaries(tmp_path):
    path = write(tmp_path, "D9902-A-CF.pyr", ducview_xml(SMALL_SUMMARIES, SMALL_SCUS, regex=False))
    pyramid = read_pyramid(path)
    assert pyramid.topic == "D9902-A"
    assert [c.summary_id for c in pyramid.scus[0].contributors] == [
        "D9902-A.M.100.A.C", "D9902-A.M.100.A.F"]


def test_replacement_characters_and_entities_are_kept(tmp_path):
    summaries = {"D9903.M.100.A.A": ["Jean Chr\ufffdtien said \"no\" to R&D cuts."]}
    scus = [SpecScu("1", "Chr\ufffdtien rejected cuts", [
        [("D9903.M.100.A.A", "Jean Chr\ufffdtien said \"no\" to R&D cuts")]])]
    pyramid = read_pyramid(write(tmp_path, "D9903.pyr", ducview_xml(summaries, scus)))
    assert pyramid.part_counts()[EXACT] == 1
    assert pyramid.scus[0].contributors[0].text == 'Jean Chr\ufffdtien said "no" to R&D cuts'


def test_latin1_file_without_an_encoding_is_read_with_a_warning(tmp_path):
    summaries = {"D9904.M.100.A.A": ["Jean Chrétien spoke in Montréal today."]}
    scus = [SpecScu("1", "Chrétien spoke", [[("D9904.M.100.A.A", "Jean Chrétien spoke in Montréal")]])]
    path = write(tmp_path, "D9904.pyr", ducview_xml(summaries, scus).encode("latin-1"))
    pyramid = read_pyramid(path)
    assert pyramid.scus[0].contributors[0].text == "Jean Chrétien spoke in Montréal"
    assert any("Latin-1" in message for _, message in pyramid.warnings)


def test_misplaced_offsets_are_recovered_and_counted(tmp_path):
    xml = ducview_xml(SMALL_SUMMARIES, SMALL_SCUS)
    first = xml.index('start="') + len('start="')
    start = int(xml[first:xml.index('"', first)])
    shifted = xml.replace(f'start="{start}"', f'start="{start + 1}"', 1)
    pyramid = read_pyramid(write(tmp_path, "D9902.pyr", shifted))
    assert pyramid.part_counts() == {EXACT: 1, RECOVERED: 1, LOST: 0}


def test_items_carry_topic_label_and_scus_with_stable_ids(sample_data):
    items = read_pyramid_items(sample_data / "D9901.pyr")
    assert tuple(items.columns) == ITEM_COLUMNS
    assert items["item_id"].is_unique
    assert set(items["dataset"]) == {"D9901"}
    assert all(i.startswith("D9901:") for i in items["item_id"])
    for item in items.itertuples():
        meta = item.meta
        assert meta["label"] == int(meta["left_scu"] == meta["right_scu"])
        assert item.item_id == f"D9901:{meta['pair_id']}"
        assert math.isnan(item.reference) and item.line > 0
    every = read_pyramid_items(sample_data / "D9901.pyr", negatives="all")
    again = read_pyramid_items(sample_data / "D9901.pyr", negatives="all", seed=7)
    assert set(again["item_id"]) == set(every["item_id"]) >= set(items["item_id"])


def test_items_by_default_are_a_balanced_seeded_sample(sample_data):
    items = read_pyramid_items(sample_data / "D9901.pyr")
    labels = [m["label"] for m in items["meta"]]
    assert sum(labels) == len(labels) - sum(labels) > 0  # one non-paraphrase per paraphrase
    every = read_pyramid_items(sample_data / "D9901.pyr", negatives="all")
    assert len(every) > len(items)
    same = read_pyramid_items(sample_data / "D9901.pyr")
    other = read_pyramid_items(sample_data / "D9901.pyr", seed=7)
    assert same["item_id"].tolist() == items["item_id"].tolist()
    assert set(other["item_id"]) != set(items["item_id"])


def test_items_with_a_number_of_negatives_per_paraphrase(sample_data):
    items = read_pyramid_items(sample_data / "D9901.pyr", negatives="0")
    assert {m["label"] for m in items["meta"]} == {1}
    with pytest.raises(SimrateError, match="--negatives"):
        parse_negatives("some")


@pytest.mark.realdata
def test_real_pyramids_read_with_no_part_lost(realdata):
    expected_topics = {"D0614.pyr": "D0614", "D0631.pyr": "D0631",
                       "D0701-AGHI.pyr": "D0701", "D0703-A-ACDJ.pyr": "D0703-A"}
    for name, topic in expected_topics.items():
        pyramid = read_pyramid(realdata / "pyramid" / name)
        assert pyramid.topic == topic
        assert len(pyramid.summaries) == 4
        assert pyramid.part_counts()[LOST] == 0
        summary_ids = {s.summary_id for s in pyramid.summaries}
        for scu in pyramid.scus:
            for contributor in scu.contributors:
                assert contributor.summary_id in summary_ids
                for part in contributor.parts:
                    found = pyramid.text[part.found_start:part.found_end]
                    assert "".join(found.split()) == "".join(part.label.split())


@pytest.mark.realdata
def test_real_line_break_part_is_recovered_and_real_replacement_characters_kept(realdata):
    aghi = read_pyramid(realdata / "pyramid" / "D0701-AGHI.pyr")
    assert aghi.part_counts()[RECOVERED] == 1
    crossing = [c.text for s in aghi.scus for c in s.contributors if "Church. Others" in c.text]
    assert len(crossing) == 1
    quebec = read_pyramid(realdata / "pyramid" / "D0614.pyr")
    assert "\ufffd" in quebec.text
