"""TypedScore key by key on the two built-in scales: what is typed is what is meant."""

from __future__ import annotations

import pytest

from simrate.core.base.scale import load_scale
from simrate.gui.widgets.typed_score import TypedScore


def typed(scale_name: str, keys: str):
    typing = TypedScore(load_scale(scale_name))
    results = [typing.key(k) for k in keys]
    return typing, results


@pytest.mark.parametrize(("keys", "value"), [
    ("3.25", 3.25), ("3", 3.0), ("34", 4.0), ("3.", 3.0), (".5", 0.5), ("2.50", 2.5),
    ("0.75", 0.75), ("4.00", 4.0)])
def test_keys_give_the_value_typed(keys, value):
    typing, results = typed("clss", keys)
    last = results[-1]
    assert last.refusal is None
    assert typing.scale.from_code(last.code) == value


@pytest.mark.parametrize(("keys", "start"), [
    ("3.3", "score 3.3 is not on the grid"), ("4.5", "score 4.5 is outside scale"),
    ("7", "score 7 is outside scale"), ("3.25.", "score '3.25.' is not a number"),
    ("1.1", "score 1.1 is not on the grid"), ("1.752", "score 1.752 is not on the grid"),
    ("0.05", "score 0.05 is not on the grid")])
def test_keys_off_the_scale_are_refused_and_typing_starts_again(keys, start):
    typing, results = typed("clss", keys)
    assert results[-1].refusal.startswith(start)
    assert results[-1].code is None and typing.text == ""


def test_unfinished_fraction_has_no_code_and_is_refused_on_demand():
    typing, results = typed("sts", "4.2")
    assert results[-1].code is None and results[-1].refusal is None
    assert typing.unfinished == "4.2"
    assert typing.refuse_unfinished().startswith("score 4.2 is not on the grid of scale sts")
    assert typing.unfinished == ""
    assert [typing.key(k).code for k in "5"] == [typing.scale.to_code(5)]  # sts goes to 5
