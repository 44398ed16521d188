"""One owner for every table of the hub (PostgreSQL, schema `simrate`; docs/architecture.md,
"The hub's tables and their owners").

The walk reads every module of app/ (its string literals but its docstrings, the literal
parts of f-strings with `{}` where a value goes) and every .sql file, and notes each
statement that writes a table of the hub: INSERT INTO, UPDATE, DELETE FROM, COPY,
TRUNCATE or MERGE INTO naming `simrate.<table>`. Each table may be written from its one
owner in OWNERS: a module, or, for the web studies' tables, the family of the three
modules that hold the web functions. A write whose table is not spelled out
(`simrate.{table}`) is refused too: nobody could tell its owner. A planted second writer
and a planted dynamic one, on a copy of the package, show that the walk catches them.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections import defaultdict
from pathlib import Path

APP = Path(__file__).resolve().parents[3] / "app"

#: The web studies' functions: every write of the web tables is in one of these (all of
#: them SECURITY DEFINER functions of the hub, called by the web login alone).
WEB = frozenset({"hub/schema/web.py", "hub/schema/web_lease.py", "hub/schema/web_rate.py"})
#: table -> the modules allowed to write it (one module, or the one web family)
OWNERS: dict[str, frozenset[str]] = {
    "ratings": frozenset({"hub/schema/later_wins.py"}),  # simrate.put_rating
    "adjudications": frozenset({"hub/schema/later_wins.py"}),  # simrate.put_verdict
    "annotators": frozenset({"hub/schema/raters.py"}),  # claim_rater, put_exclusion
    "rater_fold": frozenset({"hub/schema/raters.py"}),
    "replicas": frozenset({"hub/schema/tables.py"}),  # simrate.ack_replica
    "hub": frozenset({"hub/schema/tables.py"}),  # PUT_HUB_META
    "people": frozenset({"hub/schema/tables.py"}),  # add_person, remove_person
    "secret": frozenset({"hub/schema/tables.py"}),
    "changes": frozenset({"hub/schema/tables.py"}),  # log_change, log_refused
    "items": frozenset({"hub/link/exchange.py"}),  # INSERT_ITEM, UPLOAD_ITEMS
    "settings": frozenset({"hub/link/exchange.py"}),  # UPSERT_SETTING, UPLOAD_SETTING
    "sync_tokens": frozenset({"hub/schema/service.py"}),
    "web_flushes": frozenset({"hub/schema/durable.py"}),
    "web_studies": WEB, "web_tasks": WEB, "web_slots": WEB, "web_pool": WEB,
    "web_unrated": frozenset({"hub/schema/web.py"}),  # web_count_unrated, the recount
}
#: The routes that write ratings, each through the one door.
RATING_ROUTES = ("hub/link/push_others.py", "hub/schema/service.py",
                 "hub/schema/web_rate.py", "hub/team/publish.py")

_CREATE = re.compile(r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?simrate\.(\w+)", re.I)
_WRITE = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY|TRUNCATE(?:\s+TABLE)?|"
                    r"MERGE\s+INTO)\s+(?:ONLY\s+)?simrate\.\"?(\w+|\{)", re.I)


def _docstring_ids(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def texts_of(path: Path) -> list[str]:
    """The SQL a file may hold: a .sql file whole; a module's strings but its docstrings,
    an f-string with `{}` for each value put in."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".sql":
        return [source]
    tree, found = ast.parse(source), []
    skip = _docstring_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(part) for part in node.values)
            found.append("".join(p.value if isinstance(p, ast.Constant) else "{}"
                                 for p in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in skip:
            found.append(node.value)
    return found


def walk(app: Path) -> tuple[set[str], dict[str, set[str]]]:
    """(the hub's tables, {table or "{dynamic}": the modules that write it})."""
    tables, writers = set(), defaultdict(set)
    for path in sorted([*app.rglob("*.py"), *app.rglob("*.sql")]):
        module = path.relative_to(app).as_posix()
        for text in texts_of(path):
            tables.update(m.group(1) for m in _CREATE.finditer(text))
            for match in _WRITE.finditer(text):
                table = match.group(1)
                writers["{dynamic}" if table == "{" else table].add(module)
    return tables, writers


def owner_problems(app: Path) -> list[str]:
    """One line per table written outside its owner, per write whose table is not named,
    and per table of the hub without an owner."""
    tables, writers = walk(app)
    problems = [f"simrate.{t}: no owner declared (OWNERS)" for t in sorted(tables - set(OWNERS))]
    for table, modules in sorted(writers.items()):
        if table == "{dynamic}":
            problems.append(f"a write of simrate.{{...}} (its table not spelled out) in "
                            f"{sorted(modules)}")
        elif table not in tables:
            problems.append(f"simrate.{table}: written by {sorted(modules)}, created nowhere")
        elif modules - OWNERS[table]:
            problems.append(f"simrate.{table}: a second owner: {sorted(modules - OWNERS[table])}"
                            f" beside {sorted(OWNERS[table])}")
    return problems


def test_every_table_of_the_hub_has_one_owner():
    tables, writers = walk(APP)
    assert {"ratings", "adjudications", "annotators", "web_tasks", "replicas"} <= tables
    assert writers["ratings"] == {"hub/schema/later_wins.py"}  # the walk saw the door
    assert owner_problems(APP) == []


def test_every_route_writes_ratings_through_the_one_door():
    for route in RATING_ROUTES:
        assert any("simrate.put_rating(" in text for text in texts_of(APP / route)), route


def test_the_walk_catches_a_second_owner_and_a_table_it_cannot_name(tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__"))
    people = copy / "hub" / "team" / "people.py"
    people.write_text(people.read_text(encoding="utf-8") + '\n\nPLANTED = ("update '
                      'simrate.ratings SET code = 1 "\n           "WHERE item_id = %s")\n',
                      encoding="utf-8")
    sync = copy / "hub" / "team" / "sync.py"
    sync.write_text(sync.read_text(encoding="utf-8") + "\n\ndef planted(conn, table):\n"
                    '    conn.execute(f"DELETE FROM simrate.{table} WHERE seq < 0")\n',
                    encoding="utf-8")
    (copy / "hub" / "schema" / "extra.sql").write_text(
        "INSERT INTO simrate.adjudications (item_id, at) VALUES ('x', 0);\n", encoding="utf-8")
    assert owner_problems(copy) == [
        "simrate.adjudications: a second owner: ['hub/schema/extra.sql'] beside "
        "['hub/schema/later_wins.py']",
        "simrate.ratings: a second owner: ['hub/team/people.py'] beside "
        "['hub/schema/later_wins.py']",
        "a write of simrate.{...} (its table not spelled out) in ['hub/team/sync.py']"]
