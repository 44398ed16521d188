"""Numbers inside files are ASCII digits: a pyramid's negatives count, PIT labels and gold
labels, the slots of Turk result columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.pyramids.pyramid_project import parse_negatives
from simrate.formats.readers.pit import parse_label
from simrate.formats.readers.turk import _slots
from tests.support.helpers import one_line_error, run_cli


@pytest.mark.parametrize("given", ["３", "٣", "1_0"])
def test_negatives_takes_ascii_digits(given):
    with pytest.raises(SimrateError, match="--negatives must be 'all' or a whole number"):
        parse_negatives(given)
    assert parse_negatives(" 3 ") == 3 and parse_negatives("ALL") == "all"


@pytest.mark.parametrize("label", ["３", "(３, 2)", "(3, ٢)"])
def test_pit_labels_take_ascii_digits(label):
    with pytest.raises(SimrateError, match="neither"):
        parse_label(label, Path("train.data"), 4)
    assert parse_label("3", Path("train.data"), 4)[0] == 3.0
    assert parse_label("(3, 2)", Path("train.data"), 4)[0] == 3.0


def test_pit_gold_labels_take_ascii_digits(tmp_path):
    gold = tmp_path / "test.label"
    gold.write_text("1\t2\t3\t4\t３\t6\t7\n", encoding="utf-8")
    result = run_cli("evaluate", "--task", "pit", gold, gold)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{gold}:1:", "Label")


def test_turk_slots_are_ascii_numbers():
    with pytest.raises(SimrateError, match="no item answers found"):
        _slots(["Input.id１", "Answer.score１"], Path("batch.csv"))
    assert set(_slots(["Input.id1", "Answer.score1"], Path("batch.csv"))) == {"1"}
