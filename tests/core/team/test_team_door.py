"""`Project.team_tables` is for the owners of team tables alone (app/core/team/teamdb.py).

Reads and write transactions on the project's own connection let a module run any SQL on
the file; only the modules that own a team table use them, each for its own tables, and
everyone else asks the owners by typed functions (the team store in teamdb.py, the
replica's reads in hub/link/replica_state.py) or writes through `teamdb.team_write`, whose
steps are typed. An AST walk over app/ finds every use of the attribute; a planted use on a
copy of the package shows that the walk names it.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

APP = Path(__file__).resolve().parents[3] / "app"
#: module -> what it owns, the reason it may hold the door
OWNERS = {
    "simrate.core.project": "the door itself (the project's connection)",
    "simrate.core.team.teamdb": "the team store: check items' and assignment's tables, "
                                "typed reads of the file for team work and the hub",
    "simrate.core.team.assignment": "assignment",
    "simrate.core.team.quality": "check_items",
    "simrate.core.team.crowd": "crowd_tasks",
    "simrate.core.team.invites": "web_invites",
    "simrate.core.team.web_tables": "the web studies' tables",
    "simrate.core.team.web_study": "web_studies",
    "simrate.core.team.web_tasks": "web_tasks, web_slots",
    "simrate.core.team.crowdweb.review": "reads of web_tasks and web_slots for the review",
    "simrate.core.team.crowdweb.training": "web_training",
    "simrate.hub.link.replica_state": "reads of the replica's hub tables and outbox",
    "simrate.hub.team.kept_out": "hub_kept_out",
}


def door_users(app: Path) -> dict[str, int]:
    """{module: how often it names `team_tables`}."""
    found = {}
    for path in sorted(app.rglob("*.py")):
        parts = ("simrate",) + path.relative_to(app).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        uses = sum(1 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Attribute) and node.attr == "team_tables")
        if uses:
            found[name] = uses
    return found


def strangers(app: Path) -> list[str]:
    return sorted(f"{name} ({uses})" for name, uses in door_users(app).items()
                  if name not in OWNERS)


def test_only_the_owners_of_team_tables_use_the_door():
    users = door_users(APP)
    assert "simrate.core.team.teamdb" in users  # the walk saw the door
    assert strangers(APP) == []


def test_the_walk_names_a_new_user_of_the_door(tmp_path):
    copy = tmp_path / "simrate"
    shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__"))
    people = copy / "hub" / "team" / "people.py"
    people.write_text(people.read_text() + "\n\ndef planted(project):\n"
                      "    return project.team_tables.read('SELECT 1 FROM hub_outbox')\n")
    assert strangers(copy) == ["simrate.hub.team.people (1)"]
