"""Overlap assignment: k annotators per item, balanced loads and overlaps, reproducible."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.assignment import (
    assign,
    assign_project,
    assignment_settings,
    stored_assignment,
)
from simrate.core.team.quality import set_checks
from tests.core.team.test_packages import make_items


def per_item(plan) -> dict[str, list[str]]:
    """item -> annotators, counted independently of the plan's own bookkeeping."""
    holders: dict[str, list[str]] = {}
    for name, ids in plan.items.items():
        for item_id in ids:
            holders.setdefault(item_id, []).append(name)
    return holders


@pytest.mark.parametrize("n_items, names, k", [
    (100, ["a", "b", "c"], 2),
    (101, ["a", "b", "c", "d"], 2),
    (37, ["a", "b", "c", "d", "e"], 3),
    (10, ["a", "b"], 2),
    (7, ["a", "b", "c"], 1),
])
def test_every_item_gets_k_distinct_annotators_and_loads_are_even(n_items, names, k):
    items = [f"x:{i}" for i in range(n_items)]
    plan = assign(items, names, k, seed=5)
    holders = per_item(plan)
    assert set(holders) == set(items)
    assert all(len(h) == k == len(set(h)) for h in holders.values())
    loads = [len(ids) for ids in plan.items.values()]
    assert sum(loads) == n_items * k
    assert max(loads) - min(loads) <= 1
    for ids in plan.items.values():  # each list keeps the given order
        assert ids == [i for i in items if i in set(ids)]


def test_every_pair_of_annotators_shares_about_as_many_items():
    # with 4 annotators and 2 per item, a rotation (ab, cd, ab, cd, ...) would never let
    # a meet c; pairwise agreement needs every pair to share items
    plan = assign([f"x:{i}" for i in range(120)], ["a", "b", "c", "d"], 2, seed=0)
    shared = Counter()
    for holders in per_item(plan).values():
        for pair in combinations(sorted(holders), 2):
            shared[pair] += 1
    assert len(shared) == 6
    assert max(shared.values()) - min(shared.values()) <= 2
    assert plan.overlaps() == {pair: shared[pair] for pair in combinations("abcd", 2)}


def test_same_seed_same_plan_other_seed_other_plan():
    items = [f"x:{i}" for i in range(60)]
    first = assign(items, ["a", "b", "c"], 2, seed=11)
    assert assign(items, ["a", "b", "c"], 2, seed=11).items == first.items
    assert assign(items, ["a", "b", "c"], 2, seed=12).items != first.items


@pytest.mark.parametrize("names, k, message", [
    (["a", "b"], 3, "1 to 2 annotators"),
    (["a", "b"], 0, "1 to 2 annotators"),
    (["a", "a"], 1, "named twice: a"),
    (["a", " "], 1, "needs a name"),
    ([], 1, "at least one annotator"),
])
def test_impossible_requests_are_refused(names, k, message):
    with pytest.raises(SimrateError, match=message):
        assign(["x:1"], names, k)


def test_project_plan_is_stored_logged_and_leaves_checks_out(tmp_path):
    with Project.create(tmp_path / "p.simrate", scale="clss") as project:
        assert stored_assignment(project) == {}
        assert assignment_settings(project) is None
        project.import_items(make_items(30), source="a.tsv")
        project.import_items(make_items(6, prefix="e"), source="b.tsv")
        set_checks(project, {"d:1": 2.0, "d:2": 4.0})
        plan = assign_project(project, ["ann", "bob", "cy"], 2, seed=4, by="lead")
        assert sum(plan.loads().values()) == (30 + 6 - 2) * 2
        assert stored_assignment(project) == plan.items
        assert not {"d:1", "d:2"} & set(per_item(plan))
        settings = assignment_settings(project)
        assert (settings["per_item"], settings["seed"], settings["items"]) == (2, 4, 34)
        log = project.changes()
        assert log.iloc[-1]["kind"] == "assign" and log.iloc[-1]["who"] == "lead"
        again = assign_project(project, ["ann", "bob"], 1, seed=4, dataset="e")
        assert stored_assignment(project) == again.items  # replaced, not added to
        assert sum(again.loads().values()) == 6
        with pytest.raises(SimrateError, match="no items in dataset"):
            assign_project(project, ["ann"], 1, dataset="zzz")
