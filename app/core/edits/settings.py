"""The project's settings in its meta table: the flag rule and its thresholds.

A setting changes in one transaction with one change-log entry; `Project` then updates
its copy of the meta table and tells its subscribers (a SettingsChanged event)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.flagrule import RULES, FlagRule
from simrate.core.base.scale import Scale
from simrate.core.data import meta as meta_table
from simrate.core.data.changelog import log_change
from simrate.core.data.store import transaction


def flag_rule_values(meta: Mapping[str, str], scale: Scale, rule: str,
                     threshold: float | None, uncertain_threshold: float | None = None
                     ) -> tuple[dict[str, str], FlagRule]:
    """The meta values that set `rule` (and with `threshold`, the threshold of that rule's
    measure: the spread for `range`, the SD for `uncertain` and `auto`; with
    `uncertain_threshold`, the SD's whatever the rule), and the rule they make;
    SimrateError for an unknown rule or a threshold off the scale's range."""
    if rule not in RULES:
        raise SimrateError(f"no flag rule {rule!r}: use {', '.join(RULES)}")
    values = {"flag_rule": rule}
    if uncertain_threshold is not None:
        values["uncertain_threshold"] = str(scale.check_threshold(uncertain_threshold,
                                                                  "--threshold"))
    if threshold is not None:
        key = "threshold" if rule == "range" else "uncertain_threshold"
        values[key] = str(scale.check_threshold(threshold, "--threshold"))
    return values, FlagRule.from_meta({**meta, **values})


def store_threshold(conn: sqlite3.Connection, path: Path, old: float, new: float) -> None:
    """Write the range rule's threshold and its change-log entry in one transaction."""
    with transaction(conn, path) as writing:
        meta_table.set_flag_rule(writing, {"threshold": new})
        log_change(writing, "threshold", old=old, new=new)


def store_flag_rule(conn: sqlite3.Connection, path: Path, values: Mapping[str, str],
                    old: FlagRule, new: FlagRule) -> None:
    """Write the flag rule's meta values and one change-log entry (both rules with both
    thresholds) in one transaction."""
    with transaction(conn, path) as writing:
        meta_table.set_flag_rule(writing, values)
        log_change(writing, "flag_rule", old=old.as_dict(), new=new.as_dict())
