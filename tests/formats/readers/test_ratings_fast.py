"""The fast path for plain long ratings files reads exactly what the careful reader reads."""

from __future__ import annotations

import pandas as pd
import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.ratings import read_ratings
from simrate.formats.readers.ratings_fast import read_long_ratings_fast


def careful(path):
    """The careful reader alone (a name given skips the fast path)."""
    frame = read_ratings(path, fallback_annotator="unused")
    return frame


@pytest.mark.parametrize("text", [
    "item_id,annotator,score\na,x,1\na,y,2.5\nb,x,\nb,y,4\n",
    "id\trater\trating\tnote\na\tx\t1\t\na\ty\t2\twhy\n",
    "\ufeffitem_id,annotator,score\r\na,x,1e0\r\nb,x,3\r\n",
])
def test_same_frame_as_careful_reader(tmp_path, text):
    path = tmp_path / ("r.tsv" if "\t" in text else "r.csv")
    path.write_text(text, encoding="utf-8")
    fast = read_long_ratings_fast(path)
    assert fast is not None
    pd.testing.assert_frame_equal(fast.reset_index(drop=True), careful(path), check_dtype=False)


@pytest.mark.parametrize("text", [
    'item_id,annotator,score\n"a",x,1\n',  # quotes
    "item_id,annotator,score\na,x,1\n\nb,x,2\n",  # blank line
    "item_id,annotator,score\na, x,1\n",  # padded field
    "item_id,annotator,score\na,x,nan\n",  # text for a score
    "item_id,annotator,score\na,x,1\na,x,2\n",  # rated twice
    "item_id,annotator,score,extra\na,x,1,2\n",  # an unknown column
    "item_id,annotator,score\na,x,1,9\n",  # a field too many
    "item_id,annotator,score\na,x,inf\n",
    "item_id,annotator,score\na,x,1e-400\n",  # underflows to 0: the careful reader refuses it
    "item_id,annotator,score\na,x\ty,1\n",  # a control character in a name
])
def test_anything_unusual_goes_to_the_careful_reader(tmp_path, text):
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    assert read_long_ratings_fast(path) is None


def test_errors_still_name_the_line(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item_id,annotator,score\na,x,1\nb,x,high\n", encoding="utf-8")
    with pytest.raises(SimrateError) as error:
        read_ratings(path)
    assert error.value.line == 3
