"""Texts written by a spreadsheet-style CSV/TSV writer come back exactly."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from simrate.formats.readers.pairs import read_pairs

# CR is left out: a CR LF inside a quoted field is read as LF, like every line end
ALPHABET = st.sampled_from(list('ab Z,;\t"\n\'éß€—') + ["\u00a0"])
TEXT = st.text(ALPHABET, min_size=1, max_size=30).filter(lambda t: t.strip())


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=8),
       delimiter=st.sampled_from([",", "\t", ";"]), line_end=st.sampled_from(["\n", "\r\n"]))
def test_written_texts_read_back_exactly(pairs, delimiter, line_end):
    suffix = ".tsv" if delimiter == "\t" else ".csv"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"round{suffix}"
        with path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, delimiter=delimiter, lineterminator=line_end)
            writer.writerow(("id", "left", "right"))
            writer.writerows((f"k{n}", left, right) for n, (left, right) in enumerate(pairs))
        items = read_pairs(path)
    assert list(zip(items["left"], items["right"], strict=True)) == pairs
    assert list(items["item_id"]) == [f"k{n}" for n in range(len(pairs))]
