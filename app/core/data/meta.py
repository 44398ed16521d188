"""The one module whose SQL writes the project file's `meta` table (its settings).

Every setting has its own typed setter here; callers hand in the connection of the write
transaction they hold (a `Project` change, a migration, the file's creation), so a setting
still changes in one transaction with whatever goes with it (a change-log entry, the
assignment's rows, a package's ratings). Reading stays where it was (`Project.meta`,
`read_meta`), and `check_meta` vets the values read before anything relies on them.
tests/test_table_owners.py fails when SQL that writes `meta` appears in any other module.

Keys, by owner of their meaning: the file's own (`schema_version`, `created`, the title and
scale given at creation), the raters' namespace (`annotator_top`, the key version), the
flag rule (`flag_rule`, `threshold`, `uncertain_threshold`), team work (`assignment`,
`project_uuid`, the package keys, the organizer-mode tally) and the hub link and sync
(named in core/data/replica_mode.py and in app/hub alone: tests/test_replica_keys.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.flagrule import check_rule_meta

_PUT = "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"
#: the keys a package (core/team/packages.py) writes into its file
PACKAGE_KEYS = ("package_of", "package_annotator", "package_created", "package_format",
                "package_app_version")
#: the flag rule's keys (core/edits/settings.py)
FLAG_RULE_KEYS = ("flag_rule", "threshold", "uncertain_threshold")


def _put(conn: sqlite3.Connection, values: Mapping[str, object]) -> None:
    conn.executemany(_PUT, [(key, str(value)) for key, value in values.items()])


def _only(values: Mapping[str, object], allowed: Iterable[str], what: str) -> None:
    """ValueError (a programming error, never the user's) for a key of another setting."""
    allowed = tuple(allowed)
    strange = [key for key in values if key not in allowed and not key.startswith(allowed)]
    if strange:
        raise ValueError(f"not {what} keys: {', '.join(sorted(strange))}")


# ----------------------------------------------------------------- the file itself
def write_new(conn: sqlite3.Connection, values: Mapping[str, object]) -> None:
    """The first rows of a new, empty file (schema version, creation time, title...)."""
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                     [(key, str(value)) for key, value in values.items()])


def set_schema_version(conn: sqlite3.Connection, version: int) -> None:
    """The schema version a migration brought the file to."""
    _put(conn, {"schema_version": int(version)})


# ----------------------------------------------------------------- raters
def top_rater_trigger(top_key: str, top_sql: str) -> str:
    """The trigger that keeps the highest annotator id ever given under `top_key`."""
    return (f"CREATE TRIGGER IF NOT EXISTS annotators_top AFTER INSERT ON annotators "
            f"WHEN NEW.id > {top_sql} BEGIN INSERT OR REPLACE INTO meta (key, value) "
            f"VALUES ('{top_key}', CAST(NEW.id AS TEXT)); END")


def set_top_rater_from_table(conn: sqlite3.Connection, top_key: str, top_sql: str) -> None:
    """Set the highest annotator id ever given from the annotators now in the file (never
    below the one `top_sql` reads)."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) SELECT ?, "
                 f"CAST(max(COALESCE(MAX(id), 0), {top_sql}) AS TEXT) FROM annotators",
                 (top_key,))


def set_key_version(conn: sqlite3.Connection, key: str, version: str) -> None:
    """The version of the rule the annotators' keys were made by."""
    _put(conn, {key: version})


# ----------------------------------------------------------------- the flag rule
def set_flag_rule(conn: sqlite3.Connection, values: Mapping[str, object]) -> None:
    """The flag rule and its thresholds (any of FLAG_RULE_KEYS)."""
    _only(values, FLAG_RULE_KEYS, "flag rule")
    _put(conn, values)


# ----------------------------------------------------------------- team work
def set_assignment(conn: sqlite3.Connection, settings_json: str) -> None:
    """The settings the item assignment was made with (JSON)."""
    _put(conn, {"assignment": settings_json})


def set_project_uuid_once(conn: sqlite3.Connection, value: str) -> None:
    """The project's identity, unless one is there already (another process's wins)."""
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('project_uuid', ?)", (value,))


def set_project_uuid(conn: sqlite3.Connection, value: str) -> None:
    """The project's identity as its hub knows it."""
    _put(conn, {"project_uuid": value})


def set_package(conn: sqlite3.Connection, values: Mapping[str, object]) -> None:
    """The keys that make a file a package (PACKAGE_KEYS)."""
    _only(values, PACKAGE_KEYS, "package")
    _put(conn, values)


def set_organizer_tally(conn: sqlite3.Connection, key: str, tally_json: str) -> None:
    """Who switched organizer mode on, how often and when last (JSON)."""
    _put(conn, {key: tally_json})


# ----------------------------------------------------------------- the hub link and sync
def set_hub_keys(conn: sqlite3.Connection, values: Mapping[str, object]) -> None:
    """The link's and the sync's own keys (their names are the link's and the hub
    adapter's; none of the settings above)."""
    _not_settings(values)
    _put(conn, values)


def set_hub_key_once(conn: sqlite3.Connection, key: str, value: str) -> None:
    """A key of the link or the sync, unless it is set already."""
    _not_settings({key: value})
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))


def drop_hub_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> None:
    """Remove keys of the link (when the file becomes a plain project again)."""
    keys = list(keys)
    _not_settings(dict.fromkeys(keys, ""))
    conn.executemany("DELETE FROM meta WHERE key = ?", [(key,) for key in keys])


#: the keys of the settings above, which no hub key may overwrite
_SETTINGS = ("schema_version", "created", "assignment", "project_uuid", *FLAG_RULE_KEYS,
             *PACKAGE_KEYS)


def _not_settings(values: Mapping[str, object]) -> None:
    """ValueError (a programming error) for a key of a setting that has its own setter."""
    clash = sorted(key for key in values if key in _SETTINGS)
    if clash:
        raise ValueError(f"not hub keys: {', '.join(clash)}")


def check_meta(meta: dict[str, str]) -> int:
    """The schema version, once the meta values we rely on are known to be well formed."""
    version = meta.get("schema_version", "0")
    if not (isinstance(version, str) and version.isascii() and version.isdigit()):
        raise SimrateError(f"damaged project: schema_version is {cut(repr(version))}, "
                           "not a whole number")
    threshold = meta.get("threshold", "1.0")
    try:
        if not threshold.isascii() or "_" in threshold:  # float() reads １.５ and 1_0 too
            raise ValueError(threshold)
        points = float(threshold)
    except (TypeError, ValueError, AttributeError):
        points = float("nan")
    if not (0 < points < float("inf")):
        raise SimrateError(f"damaged project: threshold is {cut(repr(threshold))}, "
                           "not a positive number")
    problem = check_rule_meta(meta)
    if problem:
        raise SimrateError(f"damaged project: {problem}")
    if "scale" in meta:
        try:
            scale = json.loads(meta["scale"])
        except (TypeError, ValueError):
            scale = None
        if not isinstance(scale, dict):
            raise SimrateError("damaged project: the stored scale is not a JSON object")
    return int(version)
