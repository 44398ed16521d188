"""One write path: SQL that writes ratings, adjudications, exclusions or raters lives in one module.

Every change of these tables on a project file goes through `Project.edit()`
(app/core/edits/edit.py), whose writes are the functions of app/core/edits/writes.py; this
test reads every module of app/ and fails when SQL writing them appears anywhere else, so
that no route can grow its own stamp rule, change-log entry or event again. (The hub's
tables, `simrate.*` in PostgreSQL, are written by one door each: `simrate.put_rating` and
`simrate.put_verdict`, and `simrate.put_exclusion` with the raters' functions, which the
push, the publishing upload, the web study and the sync service all call; they are checked
the same way here, and every hub table by tests/hub/schema/test_hub_table_owners.py.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"

#: The one module allowed to write the project file's ratings, adjudications, exclusions.
ALLOWED = {"core/edits/writes.py"}
#: Schema upgrades of older files, run when a file is opened (no change of anyone's data).
MIGRATIONS = {"core/data/migrate.py"}
#: Modules that write the hub's copies (PostgreSQL): the doors of ratings and verdicts
#: (later_wins.py) and of exclusions (raters.py), which every route calls.
HUB_ALLOWED = {"hub/schema/later_wins.py", "hub/schema/raters.py"}

_VERB = r"(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)"
LOCAL = re.compile(
    rf"\b{_VERB}\s+(?:main\.)?\"?(?:ratings|adjudications|annotators)\b", re.I)
HUB = re.compile(
    rf"\b{_VERB}\s+simrate\.(?:ratings|adjudications)\b"
    rf"|\b(?:UPDATE\s+simrate\.annotators\s+SET|INSERT\s+INTO\s+simrate\.annotators)"
    rf"[^;]*\bexcluded\b", re.I)


def strings(source: str) -> list[str]:
    """Every string literal of a module (adjacent literals joined, f-strings with their
    placeholders as `?`), whitespace folded."""
    found, tree = [], ast.parse(source)
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "?" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        found.append(" ".join(text.split()))
    return found


def writers(pattern: re.Pattern, source: str) -> list[str]:
    """The string literals of `source` that write what `pattern` names."""
    return [s for s in strings(source) if pattern.search(s)]


def offenders(pattern: re.Pattern, allowed: set[str]) -> dict[str, list[str]]:
    found = {}
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP).as_posix()
        hits = writers(pattern, path.read_text(encoding="utf-8"))
        if hits and name not in allowed:
            found[name] = hits
    return found


def test_only_the_one_module_writes_the_files_ratings_adjudications_and_exclusions():
    assert offenders(LOCAL, ALLOWED | MIGRATIONS) == {}


def test_only_the_hubs_doors_write_the_hubs_copies():
    assert offenders(HUB, HUB_ALLOWED) == {}


def test_the_allowed_modules_do_write_them():
    """The lists name modules that still write (a renamed module must be named again)."""
    for name in ALLOWED:
        assert writers(LOCAL, (APP / name).read_text(encoding="utf-8"))
    for name in HUB_ALLOWED:
        assert writers(HUB, (APP / name).read_text(encoding="utf-8"))


def test_the_check_catches_every_form_of_write():
    probe = '''
conn.execute("INSERT OR REPLACE INTO ratings (item_ord) VALUES (?)", x)
conn.execute("DELETE FROM adjudications WHERE item_ord = ?", x)
conn.execute(f"UPDATE ratings SET code = {code}")
conn.execute("UPDATE annotators "
             "SET excluded = 1 WHERE name = ?")
conn.execute("""REPLACE INTO
    adjudications VALUES (?)""")
conn.execute("UPDATE annotators SET kind = 'crowd' WHERE name = ?")
conn.execute("DELETE FROM annotators WHERE name = ?")
'''
    assert len(writers(LOCAL, probe)) == 7
    hub = 'c.execute("INSERT INTO simrate.ratings AS r (item_id) VALUES (%s)")'
    assert len(writers(HUB, hub)) == 1
    reads = '''
conn.execute("SELECT code FROM ratings WHERE item_ord = ?")
conn.execute("CREATE TRIGGER t AFTER INSERT ON ratings BEGIN SELECT 1; END")
conn.execute("INSERT INTO hub_ratings VALUES (?)")
conn.execute("SELECT id FROM annotators WHERE key = ?")
'''
    assert writers(LOCAL, reads) == []
