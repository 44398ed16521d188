"""One owner for every table of the project file (docs/architecture.md, "Who writes each table").

A walk over the source of app/ reads every string of a module but its docstrings (string
literals, the literal parts of f-strings: the texts handed to `execute`, `executemany` and
`executescript`, and the bodies of triggers) and notes which module writes which table:
INSERT (with any conflict clause, an UPSERT included), REPLACE, UPDATE or DELETE naming it.
A table with a fixed owner (`OWNERS`: `meta` through core/data/meta.py, the hub adapter's
`hub_outbox` and `hub_ratings` through hub/link/outbox.py, `web_fill` through
core/team/web_tables.py) may be written by that module alone; any other table of the file
(every table some module's SQL creates, the hub's PostgreSQL schema aside) from one family
only: one area of the package, the folder two levels down with its sub-folders
(core/team, core/edits, hub/team...). The schema's upgrades (core/data/migrate.py) may
rewrite any table. The test names the modules of any second writer. A planted second
writer, on a copy of the package, shows that the walk catches one.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections import defaultdict
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
#: the hub's own schema (PostgreSQL): its tables are not the project file's
HUB_SCHEMA = "simrate.hub.schema"
#: the schema's upgrades rewrite the tables they change, whoever writes them otherwise
UPGRADES = "simrate.core.data.migrate"
#: the one family of each table that has a fixed owner
OWNERS = {
    "meta": {"simrate.core.data.meta"},
    "hub_outbox": {"simrate.hub.link.outbox"},
    "hub_ratings": {"simrate.hub.link.outbox"},
    "web_fill": {"simrate.core.team.web_tables"},
}
_CREATE = re.compile(r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
_WRITE = re.compile(
    r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)"
    r"\s+[\"'`]?(\w+)[\"'`]?", re.IGNORECASE)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def sql_texts(tree: ast.AST) -> list[str]:
    """Every string literal of a module but its docstrings, f-strings' literal parts
    joined with a space."""
    texts, skip = [], docstrings(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            texts.append(" ".join(part.value for part in node.values
                                  if isinstance(part, ast.Constant)))
    return texts


def module_texts(app: Path) -> dict[str, list[str]]:
    """{module (dotted): its SQL texts}, the hub's PostgreSQL schema left out."""
    found = {}
    for path in sorted(app.rglob("*.py")):
        parts = ("simrate",) + path.relative_to(app).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if not name.startswith(HUB_SCHEMA):
            found[name] = sql_texts(ast.parse(path.read_text(encoding="utf-8")))
    return found


def file_tables(texts: dict[str, list[str]]) -> set[str]:
    """The tables of the project file: every table some module's SQL creates."""
    return {match.group(1).lower() for found in texts.values() for text in found
            for match in _CREATE.finditer(text)}


def writers(app: Path) -> dict[str, set[str]]:
    """{table of the project file: the modules (dotted) whose SQL writes it}."""
    texts = module_texts(app)
    tables, found = file_tables(texts), defaultdict(set)
    for name, module_sql in texts.items():
        for text in module_sql:
            for match in _WRITE.finditer(text):
                if match.group(1).lower() in tables:
                    found[match.group(1).lower()].add(name)
    return found


def family(module: str) -> str:
    """A module's family: its area, the folder two levels down (simrate.core.team, with
    its sub-folders; simrate.hub.link)."""
    return ".".join(module.split(".")[:3])


def second_owners(app: Path) -> list[str]:
    """One line per table written from more than one family, or not by its fixed owner."""
    problems = []
    for table, modules in sorted(writers(app).items()):
        if table in OWNERS:
            others = sorted(modules - OWNERS[table])
            if others:
                problems.append(f"{table}: written outside its owner by {others}")
            continue
        families = {family(module) for module in modules - {UPGRADES}}
        if len(families) > 1:
            problems.append(f"{table}: written from {sorted(families)}: {sorted(modules)}")
    return problems


def test_every_table_of_the_project_file_has_one_owner():
    found = writers(APP)
    assert {"meta", "ratings", "changes", "hub_outbox", "web_fill"} <= set(found)  # saw SQL
    assert second_owners(APP) == []


def test_the_walk_catches_a_second_writer(tmp_path):
    copy = tmp_path / "simrate"
    shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / "core" / "team" / "invites.py"
    target.write_text(target.read_text() + "\n\ndef planted(conn):\n"
                      "    conn.executemany(\n        'INSERT OR REPLACE INTO meta '\n"
                      "        'VALUES (?, ?)', [('x', '1')])\n")
    other = copy / "hub" / "team" / "people.py"
    other.write_text(other.read_text() + "\n\nDROP = f\"DELETE FROM web_slots WHERE study = {1}\"\n")
    found = second_owners(copy)
    assert found[0] == "meta: written outside its owner by ['simrate.core.team.invites']"
    assert len(found) == 2 and found[1].startswith(
        "web_slots: written from ['simrate.core.team', 'simrate.hub.team']"), found
    assert "'simrate.hub.team.people'" in found[1]
