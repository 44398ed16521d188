"""The replica's meta keys have owners, checked on the source by an AST walk of app/.

- The link's keys (hub URL, role, name, replica id, sync token) are named in
  core/data/replica_mode.py alone: every other module asks `project.mode`.
- The sync's own keys (what was pushed and pulled, when) are the hub adapter's: no module
  outside app/hub names them. Outside it, a `hub_` name may only be one of the replica's
  tables (core/data/replica_tables.py) or the core's mark of a blinded annotator's file.

Every string in the code counts (SQL, f-string parts, constants), docstrings do not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from simrate.core.data.replica_mode import MODE_KEYS

APP = Path(__file__).resolve().parents[1] / "app"
MODE_MODULE = APP / "core" / "data" / "replica_mode.py"
HUB_NAME = re.compile(r"(?<!\w)hub_\w*")
REPLICA_TABLES = {"hub_ratings", "hub_adjudications", "hub_annotators", "hub_outbox",
                  "hub_kept_out"}
#: Names allowed outside app/hub, each in its one module (besides the tables, anywhere).
OWN_KEYS = {"hub_blind": APP / "core" / "team" / "blind.py",
            # `check` tells the hub adapter's outbox triggers (named hub_...) from strangers
            "hub_": APP / "core" / "check" / "schema_check.py"}


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            found.add(id(node.body[0].value))
    return found


def hub_names() -> list[tuple[Path, int, str]]:
    """(module, line, name) of every `hub_...` name in a string of app/'s code."""
    found = []
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in skip:
                found += [(path, node.lineno, name) for name in HUB_NAME.findall(node.value)]
    return found


def test_the_walk_sees_the_keys_where_they_are_named():
    """The walk finds the names it is about (else the tests below could not fail)."""
    names = {(path, name) for path, _line, name in hub_names()}
    assert {(MODE_MODULE, key) for key in MODE_KEYS} <= names
    assert any(name.startswith("hub_wm_") for path, name in names
               if APP / "hub" in path.parents)


def test_only_the_mode_names_the_links_keys():
    stray = [f"{path.relative_to(APP)}:{line}: {name}" for path, line, name in hub_names()
             if name in MODE_KEYS and path != MODE_MODULE]
    assert stray == [], "ask project.mode (core/data/replica_mode.py) instead"


def test_the_syncs_keys_stay_in_the_hub_adapter():
    hub = APP / "hub"
    stray = [f"{path.relative_to(APP)}:{line}: {name}" for path, line, name in hub_names()
             if hub not in path.parents and path != MODE_MODULE
             and name not in REPLICA_TABLES and OWN_KEYS.get(name) != path]
    assert stray == [], "the hub adapter's keys: read them through app/hub/link/replica.py"
