"""simrate team publish|add|remove|invite|token|join|sync|harden: work as a team through a PostgreSQL hub."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from typing import TypeVar

from simrate.core.base.errors import SimrateError

T = TypeVar("T")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `team` command and its subcommands."""
    from simrate.commands.option_types import web_address

    team = sub.add_parser("team", help="work as a team through a PostgreSQL hub")
    verbs = team.add_subparsers(dest="team_command", metavar="ACTION",
                                parser_class=type(team))
    verbs.required = True
    p = verbs.add_parser("publish", help="create the hub in a database and upload the project")
    p.add_argument("project")
    p.add_argument("url", metavar="URL", help="libpq URL or connection string, no password")
    _wait_option(p)
    p = verbs.add_parser("add", help="give a person a login on the hub")
    p.add_argument("project")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--role", choices=("annotator", "organizer"), required=True)
    p.add_argument("--login", default=None, help="login role name (default: from NAME)")
    p = verbs.add_parser("remove", help="revoke a person's login (their ratings stay)")
    p.add_argument("project")
    p.add_argument("name", metavar="NAME")
    for verb, text in (("invite", "a personal link to rate in the browser (simrate serve)"),
                       ("token", "a sync link: the annotator syncs through simrate serve on "
                                 "this organizer's replica, with no login of their own")):
        p = verbs.add_parser(verb, help=text)
        p.add_argument("project")
        p.add_argument("name", metavar="NAME")
        p.add_argument("--base-url", default="http://127.0.0.1:8000", type=web_address,
                       help="where simrate serve answers, as the person reaches it")
    p = verbs.add_parser("join", help="make a local replica of a hub")
    p.add_argument("url", metavar="URL", help="libpq URL, or a sync link (simrate team token)")
    p.add_argument("local", metavar="LOCAL.simrate")
    _wait_option(p)
    p = verbs.add_parser("sync", help="one sync round: push local changes, pull remote ones")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    _wait_option(p)
    p = verbs.add_parser("harden", help="close PostgreSQL's statistics, role list and lock "
                         "views of the hub's database to annotators (a superuser's login)")
    p.add_argument("url", metavar="URL")


def _wait_option(p: argparse.ArgumentParser) -> None:
    from simrate.commands.option_types import finite_float

    p.add_argument("--wait", type=finite_float, default=None, metavar="SECONDS",
                   help="while the hub is full or unreachable, try again with growing "
                   "waits for up to SECONDS in all (default: SIMRATE_HUB_WAIT, else 30; "
                   "0: try once)")


def _wait(args: argparse.Namespace) -> float:
    from simrate.hub.link.backoff import total_wait

    return total_wait(args.wait)


def run(args: argparse.Namespace) -> int:
    """Run one team subcommand."""
    return {"publish": _publish, "add": _add, "remove": _remove, "join": _join,
            "sync": _sync, "harden": _harden, "invite": _invite,
            "token": _token}[args.team_command](args)


def _token(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.hub.link.client import make_link
    from simrate.hub.team.tokens import issue_token

    with Project.open(args.project) as project:
        token, login = with_password(lambda pw: issue_token(project, args.name, pw))
    print(make_link(args.base_url, token))
    print(f"a sync link for {args.name.strip()} (login {login}): they join with `simrate team "
          f"join LINK FILE` and sync through `simrate serve {args.project}`; keep it secret; "
          f"`simrate team remove {args.project} {args.name.strip()}` revokes it",
          file=sys.stderr)
    return 0


def _invite(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.core.team.invites import invite

    with Project.open(args.project) as project:
        token = invite(project, args.name, by=_organizer())
    print(f"{args.base_url.rstrip('/')}/invite/{token}")
    print(f"a personal link for {args.name.strip()}: they rate their assignment in the browser "
          f"while `simrate serve {args.project}` runs; `simrate team remove {args.project} "
          f"{args.name.strip()}` revokes it", file=sys.stderr)
    return 0


def _organizer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "organizer"


def with_password(action: Callable[[str | None], T]) -> T:
    """Run `action(None)`, letting libpq find the password; on a terminal, when the hub
    asks for one libpq did not have, ask once and try again (the password is not kept)."""
    from simrate.hub.link.connection import HubError

    try:
        return action(None)
    except HubError as exc:
        if exc.kind != "password" or not sys.stdin.isatty():
            raise
        secret = getpass.getpass("Password for the hub: ")
        return action(secret or None)


def _publish(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.hub.team.publish import publish

    with Project.open(args.project) as project:
        wait = _wait(args)
        report = with_password(lambda pw: publish(project, args.url, pw, wait=wait))
    state = "new hub" if report.new_hub else "hub brought up to date"
    print(f"{args.project}: published to {args.url} ({state}): {report.items} items, "
          f"{report.ratings} ratings, {report.adjudications} adjudications")
    if not report.hardened:
        print("note: every login of this database can still read PostgreSQL's statistics "
              "(write counts per table, who is connected) and its role list; a superuser "
              f"closes them with: simrate team harden '{args.url}' (as that superuser)")
    print(f"next: simrate team add {args.project} NAME --role annotator")
    return 0


def _harden(args: argparse.Namespace) -> int:
    from simrate.hub.team.publish import harden

    with_password(lambda pw: harden(args.url, pw))
    print(f"{args.url}: statistics, role list and lock views closed to all but the organizers")
    return 0


def _new_password(name: str) -> str | None:
    """The new person's first password: typed twice on a terminal, else one stdin line."""
    if sys.stdin.isatty():
        first = getpass.getpass(f"Password for {name} (empty: set none now): ")
        if first and getpass.getpass("Again: ") != first:
            raise SimrateError("the two passwords differ; nothing was changed")
        return first or None
    line = sys.stdin.readline()
    return line.rstrip("\r\n") or None


def _add(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.hub.link.connection import parse_url
    from simrate.hub.team.people import add_person

    secret = _new_password(args.name)
    with Project.open(args.project) as project:
        login, url = with_password(lambda pw: add_person(project, args.name, args.role, secret,
                                                         pw, args.login))
    parts = parse_url(url)
    print(f"added {args.name} as {'an annotator' if args.role == 'annotator' else 'an organizer'}"
          f" (login {login})")
    print(f"they join with: simrate team join '{url}' {login}.simrate")
    where = f"{parts.get('host', 'localhost')}:{parts.get('port', '5432')}:" \
            f"{parts.get('dbname', '')}:{login}:PASSWORD"
    if secret:
        print("password: the one typed here; tell it to them in person. They keep it in their "
              f"password file (~/.pgpass, a line {where}) or type it when simrate asks.")
    else:
        print(f"no password set: run `simrate team add {args.project} {args.name} --role "
              f"{args.role}` again to set one")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.core.team.invites import revoke
    from simrate.hub.team.people import remove_person

    with Project.open(args.project) as project:
        links = revoke(project, args.name, by=_organizer())
        if links:
            print(f"{args.name}: {links} browser link(s) revoked")
        if links and project.mode.plain:
            return 0  # a plain file: the links were all there was to revoke
        login = with_password(lambda pw: remove_person(project, args.name, pw))
    print(f"removed {args.name}: login {login} can no longer connect; their ratings stay")
    return 0


def _join(args: argparse.Namespace) -> int:
    from simrate.hub.team.join import join

    wait = _wait(args)
    project, report = with_password(lambda pw: join(args.url, args.local, pw, wait=wait))
    with project:
        name = project.mode.name or ""
        kind = project.mode.role.value
        own = len(project.ratings())
        items = project.n_items
    who = f"{name} ({kind})" if name else f"an {kind}"
    print(f"{args.local}: joined as {who}: {items} items, {own} ratings")
    how = " --organizer" if kind == "organizer" else (f" --annotator '{name}'" if name else "")
    print(f"open it with: simrate {args.local}{how}")
    del report
    return 0


def _sync(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.hub.link.connection import HubError
    from simrate.hub.team.sync import clock_line, conflict_line, pending_count, sync_once

    wait = _wait(args)
    with Project.open(args.project) as project:
        try:
            done = with_password(lambda pw: sync_once(project, pw, wait=wait))
            report, offset = done.as_dict(), done.clock_offset
        except HubError as exc:
            if args.json:  # the hub value says which it is: unreachable, full, ...
                print(json.dumps({"pushed": 0, "pulled": 0, "pending": pending_count(project),
                                  "conflicts": 0, "hub": exc.state}))
            raise SimrateError(f"{exc.message}; nothing is lost, the changes stay pending",
                               args.project) from None
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{args.project}: pushed {report['pushed']}, pulled {report['pulled']}, "
              f"pending {report['pending']}")
        if report["conflicts"]:
            print(f"{args.project}: "
                  f"{conflict_line(report['conflicts'], report.get('conflict_list', ()))}")
    if clock_line(offset):
        print(f"simrate: warning: {clock_line(offset)}", file=sys.stderr)
    return 0
