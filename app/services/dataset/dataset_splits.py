"""The splits of a dataset folder: which items each holds, and the data files they make.

`--split NAME` puts every item in one split (train by default). `--split NAME=DATASET[,...]`
(repeatable) makes one split per option, each of the items whose `dataset` is named; a
set named in two splits, or that no item has, is refused, and items of sets no split names
are left out (the export says how many). Each split has its own data files,
data/gold-<split>.jsonl and data/ratings-<split>.jsonl, with the ratings of its items.
With `--add` the folder's earlier splits stay, and a split of the same name is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.formats.dataset.dataset_folder import check_split


@dataclass(frozen=True)
class Split:
    """One split: its name and the positions of its items in the gold rows."""

    name: str
    items: np.ndarray


def parse_splits(values: Sequence[str]) -> tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """`--split` values as (the one split's name, or "train"; the NAME=DATASET splits)."""
    if not values:
        return "train", ()
    if len(values) == 1 and "=" not in values[0]:
        return check_split(values[0]), ()
    splits = []
    for value in values:
        name, sep, sets = value.partition("=")
        named = tuple(s.strip() for s in sets.split(",") if s.strip())
        if not sep or not named:
            raise SimrateError(f"--split {value!r}: with several splits each is "
                               "NAME=DATASET[,DATASET...] (train=MSRpar,MSRvid)")
        splits.append((check_split(name.strip()), named))
    return splits[0][0], tuple(splits)


def plan_splits(name: str, splits: Sequence[tuple[str, Sequence[str]]], datasets: np.ndarray,
                taken: Sequence[str] = ()) -> tuple[list[Split], int]:
    """The splits to write over the items (their `dataset` values), and how many items
    no split holds. `taken`: the splits the folder has already (--add)."""
    if not splits:
        plan = [Split(check_split(name), np.arange(len(datasets)))]
    else:
        plan = _by_dataset(splits, datasets)
    for split in plan:
        if split.name in taken:
            raise SimrateError(f"--split {split.name!r}: the folder has this split already; "
                               "give another name, or export all splits again without --add")
    held = sum(len(split.items) for split in plan)
    return plan, len(datasets) - held


def _by_dataset(splits: Sequence[tuple[str, Sequence[str]]], datasets: np.ndarray
                ) -> list[Split]:
    """One split per NAME=DATASET,... option; a set in two splits or in none refused."""
    present = set(datasets.tolist())
    owner: dict[str, str] = {}
    plan: list[Split] = []
    for name, sets in splits:
        if any(split.name == name for split in plan):
            raise SimrateError(f"--split {name!r} is given twice; list its sets in one option")
        for one in sets:
            if one not in present:
                known = sorted(present)
                raise SimrateError(f"--split {name}={','.join(sets)}: no item has dataset "
                                   f"{one!r} (the project's: {', '.join(known[:12])}"
                                   f"{', ...' if len(known) > 12 else ''})")
            if one in owner:
                raise SimrateError(f"--split: dataset {one!r} is in both {owner[one]!r} and "
                                   f"{name!r}; an item belongs to one split")
            owner[one] = name
        plan.append(Split(name, np.flatnonzero(np.isin(datasets, list(sets)))))
    return plan
