"""Locating parts in the pyramid text, model summaries, topics, contributor texts."""

from __future__ import annotations

import random
import re

import pytest

from simrate.core.pyramid.model import (
    EXACT,
    LOST,
    RECOVERED,
    Contributor,
    Part,
    PartLocator,
    Scu,
    _WhitespaceFree,
    build_pyramid,
    find_summaries,
    locate_part,
    topic_of,
)

LINES = [
    "#4", "", "",
    "-----------------", " D0703-A.M.100.A.A", "-----------------", "",
    "The bank raised its rate.", "Markets fell sharply.",
    "",
    "-----------------", " D0703-A.M.100.A.C", "-----------------", "",
    "Markets fell after the bank raised rates.", "Traders were surprised.",
]
TEXT = "\n".join(LINES)


def part_of(fragment: str, shift: int = 0, occurrence: int = 0) -> Part:
    """A part whose offsets are those of `fragment` in TEXT, moved by `shift`."""
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(fragment, start + 1)
    return Part(fragment, start + shift, start + len(fragment) + shift, line=1)


def test_summaries_are_found_by_their_dashed_id_blocks_with_update_task_ids():
    summaries = find_summaries(LINES)
    assert [s.summary_id for s in summaries] == ["D0703-A.M.100.A.A", "D0703-A.M.100.A.C"]
    first, second = summaries
    assert TEXT[first.start:first.end].rstrip("\n").endswith("Markets fell sharply.")
    assert TEXT[second.start:second.end].endswith("Traders were surprised.")
    assert first.end == second.start


def test_topic_comes_from_summary_ids_else_the_fallback():
    assert topic_of(find_summaries(LINES), "file-stem") == "D0703-A"
    assert topic_of([], "file-stem") == "file-stem"
    mixed = find_summaries(["---", "D0601.M.250.A.A", "---", "x", "---", "D0602.M.250.A.B", "---"])
    assert topic_of(mixed, "stem") == "stem"


def test_part_at_its_offsets_is_exact():
    part = part_of("Markets fell sharply.")
    locate_part(TEXT, part)
    assert part.status == EXACT
    assert (part.found_start, part.found_end) == (part.start, part.end)


def test_part_shifted_by_one_is_recovered_where_its_label_is():
    part = part_of("bank raised its rate", shift=1)
    locate_part(TEXT, part)
    assert part.status == RECOVERED
    assert TEXT[part.found_start:part.found_end] == "bank raised its rate"


def test_nearest_occurrence_wins_when_a_label_occurs_twice():
    # "Markets fell" is in both summaries; offsets pointing near the second must find the second
    part = part_of("Markets fell", shift=2, occurrence=1)
    locate_part(TEXT, part)
    assert part.status == RECOVERED
    assert part.found_start == TEXT.index("Markets fell", TEXT.index("A.C"))


def test_part_crossing_a_line_break_is_found_ignoring_whitespace():
    start = TEXT.index("rate.\nMarkets")
    label = "rate.Markets fell"  # DUCView drops the line break from the label
    part = Part(label, start, start + len(label), line=1)
    locate_part(TEXT, part)
    assert part.status == RECOVERED
    assert TEXT[part.found_start:part.found_end] == "rate.\nMarkets fell"


def test_part_with_offsets_outside_the_text_is_recovered_when_its_label_is_nearby():
    part = Part("Traders were surprised.", len(TEXT) + 5, len(TEXT) + 28, line=1)
    locate_part(TEXT, part)
    assert part.status == RECOVERED
    assert TEXT[part.found_start:part.found_end] == "Traders were surprised."


def test_missing_offsets_still_allow_a_search_from_the_start():
    part = Part("The bank raised", None, None, line=1)
    locate_part(TEXT, part)
    assert part.status == RECOVERED


def test_part_whose_label_is_nowhere_is_lost_and_so_is_a_blank_label():
    absent = Part("central bank governor", 10, 31, line=1)
    blank = Part("  ", 10, 12, line=1)
    for part in (absent, blank):
        locate_part(TEXT, part)
        assert part.status == LOST
        assert part.found_start == -1


def test_label_beyond_the_search_window_is_lost():
    text = "x" * 5000 + " needle phrase"
    part = Part("needle phrase", 0, 13, line=1)
    locate_part(text, part, window=1000)
    assert part.status == LOST
    locate_part(text, part, window=6000)
    assert part.status == RECOVERED


def test_spent_search_budget_loses_parts_instead_of_scanning_on():
    text = "y" * 3000 + " far away words"
    locator = PartLocator(text, window=4000, budget=10_000)
    first, second = Part("far away words", 0, 14), Part("far away words", 0, 14)
    locator.locate(first)
    locator.locate(second)
    assert first.status == RECOVERED
    assert second.status == LOST and locator.budget_spent


def test_a_run_of_parts_shifted_by_one_is_all_recovered():
    fragments = ["The bank", "raised its rate", "Markets fell after", "Traders were"]
    parts = [part_of(f, shift=1) for f in fragments]
    scu = Scu("1", "label", [Contributor("c", [p]) for p in parts])
    pyramid = build_pyramid(LINES, [scu])
    assert pyramid.part_counts() == {EXACT: 0, RECOVERED: 4, LOST: 0}
    assert [TEXT[p.found_start:p.found_end] for p in parts] == fragments


def test_contributor_text_follows_the_text_order_and_names_its_summary():
    later, earlier = part_of("were surprised"), part_of("Traders")
    contributor = Contributor("were surprised...Traders", [later, earlier], line=3)
    pyramid = build_pyramid(LINES, [Scu("4", "Traders were surprised", [contributor])])
    assert contributor.text == "Traders were surprised"
    assert contributor.summary_id == "D0703-A.M.100.A.C"
    assert pyramid.topic == "D0703-A"


def test_contributor_in_the_preamble_has_no_summary_and_lost_parts_keep_their_label():
    preamble = Part("#4", 0, 2)
    lost = Part("words that are absent", 100, 121)
    contributor = Contributor("", [preamble, lost])
    build_pyramid(LINES, [Scu("1", "x", [contributor])])
    assert contributor.summary_id == ""
    assert contributor.text == "#4 words that are absent"


def test_scu_without_contributors_is_dropped_with_a_warning_naming_its_line():
    empty = Scu("9", "nothing here", [], line=42)
    kept = Scu("2", "kept", [Contributor("c", [part_of("Traders")])])
    pyramid = build_pyramid(LINES, [empty, kept])
    assert [s.uid for s in pyramid.scus] == ["2"]
    assert any(line == 42 and "SCU 9" in message for line, message in pyramid.warnings)


def test_lost_parts_are_warned_about_with_their_line():
    contributor = Contributor("c", [Part("not in the text at all", 3, 25, line=77)])
    pyramid = build_pyramid(LINES, [Scu("1", "x", [contributor])])
    assert pyramid.part_counts()[LOST] == 1
    assert any(line == 77 for line, _ in pyramid.warnings)


@pytest.mark.parametrize("seed", range(25))
def test_whitespace_free_search_agrees_with_a_regex(monkeypatch, seed):
    monkeypatch.setattr(_WhitespaceFree, "CHUNK", 7)  # many chunk boundaries
    rng = random.Random(seed)
    text = "".join(rng.choice("ab  \n\t\u00a0") for _ in range(400))
    compact = "".join(text.split())
    begin = rng.randrange(len(compact) - 4)
    label_chars = compact[begin:begin + rng.randint(1, 6)]
    label = "".join(ch + rng.choice(["", " ", "  "]) for ch in label_chars)
    low, high = sorted(rng.sample(range(len(text) + 1), 2))
    pattern = re.compile("(?=(" + r"\s*".join(re.escape(ch) for ch in label_chars) + "))")
    expected = [(m.start(1), m.end(1)) for m in pattern.finditer(text, low, high)
                if m.end(1) <= high and not text[m.start(1)].isspace()]
    assert _WhitespaceFree(text).spans(label, low, high) == expected
