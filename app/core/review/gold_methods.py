"""The gold reads of `Project`: the gold table under a method and the flag rule, and the
rater model's figures per rater. A part of the facade kept in a module of its own (as
app/core/imports/methods.py is); `Project` inherits these methods."""

from __future__ import annotations

import sqlite3
from typing import Protocol

import pandas as pd

from simrate.core.base.flagrule import FlagRule
from simrate.core.base.scale import Scale
from simrate.core.data import tables
from simrate.core.data.item_index import ItemIndex
from simrate.core.edits.roster import Roster
from simrate.core.review.gold import compute_gold, rater_estimates


class GoldHost(Protocol):
    """What the gold methods use of `Project` (mypy checks it at each call)."""

    scale: Scale
    roster: Roster
    _conn: sqlite3.Connection
    _index: ItemIndex

    @property
    def flag_rule(self) -> FlagRule: ...
    def annotators(self) -> list[str]: ...
    def adjudications(self) -> pd.DataFrame: ...
    def gold_inputs(self) -> tuple[pd.DataFrame, pd.DataFrame]: ...


class GoldMethods:
    """Gold and the rater model, for `Project`."""

    def gold(self: GoldHost, threshold: float | FlagRule | None = None,
             method: str = "mean") -> pd.DataFrame:
        """Gold table in project order (columns: simrate.core.base.frames.GOLD_COLUMNS, the
        crowd columns for crowds, rating:<name>); `method`: mean, median or model (the rater
        model, with gold_low/gold_high); `threshold`: another flag rule for this table only."""
        items, ratings = self.gold_inputs()
        return compute_gold(items, ratings, self.adjudications(), self.scale,
                            self.flag_rule if threshold is None else threshold,
                            self.roster.left_out(), self.annotators(), method=method)

    def rater_model(self: GoldHost) -> dict[str, dict]:
        """Each counted rater's bias (relative to the average rater), noise (SD of the
        rater's error) and reliability under the rater model, with the ratings it rests
        on: {name: {bias, noise, reliability, n}} (app/core/review/rater_model.py)."""
        items, ratings = self.gold_inputs()
        return rater_estimates(items, ratings, self.scale, self.roster.left_out(),
                               self.annotators())

    def gold_inputs(self: GoldHost) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(items, ratings) with only what gold needs (app/core/data/tables.py)."""
        return tables.read_gold_inputs(self._conn, self._index, self.scale)
