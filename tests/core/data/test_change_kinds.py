"""Every kind of change-log entry the code writes is in changelog.CHANGE_KINDS, the table the
documentation's change-log reference is built from."""

from __future__ import annotations

import ast
from pathlib import Path

from simrate.core.data.changelog import CHANGE_KINDS

APP = Path(__file__).resolve().parents[3] / "app"


def constants() -> dict[str, str]:
    """Module-level NAME = "text" assignments of app/ (a kind may be named by one)."""
    found = {}
    for path in APP.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = node.value.value
    return found


def logged_kinds() -> dict[str, str]:
    """{kind: where} for every string literal that can be a log_change kind (called, or
    handed to a team write's `step`: teamdb.TeamWrite)."""
    found = {}
    named = constants()
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and (
                    getattr(node.func, "id", "") == "log_change"
                    or getattr(node.func, "attr", "") == "step" and node.args
                    and getattr(node.args[0], "id", "") == "log_change")):
                continue
            kind = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "kind"), None)
            values = [kind] if not isinstance(kind, ast.IfExp) else [kind.body, kind.orelse]
            for value in values:
                if isinstance(value, ast.Name) and value.id in named:
                    value = ast.Constant(named[value.id])
                assert isinstance(value, ast.Constant), f"{path}:{node.lineno}: a kind " \
                    "that is not a literal cannot be checked against CHANGE_KINDS"
                found[value.value] = f"{path.relative_to(APP.parent)}:{node.lineno}"
    return found


def test_every_logged_kind_is_documented():
    found = logged_kinds()
    assert {"rating", "adjudication", "import_ratings"} <= set(found)
    missing = {kind: where for kind, where in found.items() if kind not in CHANGE_KINDS}
    assert missing == {}


def test_every_documented_kind_is_logged_somewhere():
    assert set(CHANGE_KINDS) - set(logged_kinds()) == set()
