"""simrate team publish|add|remove|invite|token|join|sync|harden: work as a team through a PostgreSQL hub."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted

T = TypeVar("T")

#: Where `simrate serve` answers when nothing else is said.
DEFAULT_BASE = "http://127.0.0.1:8000"
BASE_HELP = {"invite": f"the sync service's address on a hub replica that has one, else "
                       f"{DEFAULT_BASE}",
             "token": f"the sync service's address when the file keeps one, else {DEFAULT_BASE}"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `team` command and its subcommands."""
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
    p.add_argument("--reset-password", action="store_true",
                   help="NAME is already on the hub: give them the new password typed here "
                        "(without this, adding a person again never changes it)")
    _service_option(p)
    p = verbs.add_parser("remove", help="revoke a person's login (their ratings stay)")
    p.add_argument("project")
    p.add_argument("name", metavar="NAME")
    _link_verbs(verbs)
    p = verbs.add_parser("join", help="make a local replica of a hub, or take a new link "
                         "into an existing replica of the same hub and person (re-invited)")
    p.add_argument("url", metavar="URL", help="libpq URL, or a sync link (simrate team "
                   "token, or team invite on a hub replica with a sync service)")
    p.add_argument("local", metavar="LOCAL.simrate")
    _wait_option(p)
    p = verbs.add_parser("sync", help="one sync round: push local changes, pull remote ones")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    _wait_option(p)
    p = verbs.add_parser("harden", help="close PostgreSQL's statistics, role list and lock "
                         "views of the hub's database to annotators (a superuser's login)")
    p.add_argument("url", metavar="URL")


def _link_verbs(verbs) -> None:
    """`team invite` and `team token`: personal links."""
    from simrate.commands.base.option_types import web_address

    for verb, text in (("invite", "a personal link: to rate in the browser (simrate serve), "
                                  "or, on a hub replica with a sync service, to join the hub "
                                  "through it"),
                       ("token", "a sync link: the annotator syncs through simrate serve on "
                                 "this organizer's replica, with no login of their own")):
        p = verbs.add_parser(verb, help=text)
        p.add_argument("project")
        p.add_argument("name", metavar="NAME")
        p.add_argument("--base-url", default=None, type=web_address,
                       help="where simrate serve answers, as the person reaches it "
                       f"(default: {BASE_HELP[verb]})")
        _service_option(p)


def _service_option(p: argparse.ArgumentParser) -> None:
    from simrate.commands.base.option_types import service_address

    p.add_argument("--service", type=service_address, default=None, metavar="URL")


def _wait_option(p: argparse.ArgumentParser) -> None:
    from simrate.commands.base.option_types import wait_seconds

    p.add_argument("--wait", type=wait_seconds, default=None, metavar="SECONDS",
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
        service = _service(args, project)
        token, login = with_password(lambda pw: issue_token(project, args.name, pw))
        _keep_service(args, project)
    print(make_link(args.base_url or service or DEFAULT_BASE, token))
    print(f"a sync link for {args.name.strip()} (login {login}): they join with `simrate team "
          f"join LINK FILE` and sync through `simrate serve {args.project}`; keep it secret; "
          f"`simrate team remove {args.project} {args.name.strip()}` revokes it",
          file=sys.stderr)
    return 0


def _service(args: argparse.Namespace, project) -> str:
    """The sync service's address for this command: --service URL (kept in the file once
    the command has done its work, `_keep_service`), `--service direct` none, else the one
    the file keeps ('' when none)."""
    from simrate.hub.team.tokens import check_service_owner, service_address

    if args.service is None:
        return service_address(project)
    check_service_owner(project)
    return "" if args.service == "direct" else args.service.rstrip("/")


def _keep_service(args: argparse.Namespace, project) -> None:
    from simrate.hub.team.tokens import keep_service_address

    if args.service is not None:
        keep_service_address(project, "" if args.service == "direct" else args.service)


def _invite(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.core.team.invites import invite

    with Project.open(args.project) as project:
        hub = not project.mode.plain  # --service on a plain file: refused
        service = _service(args, project) if hub or args.service is not None else ""
        if service:
            return _invite_through(args, project, service)
        token = invite(project, args.name, by=_organizer())
    print(f"{(args.base_url or DEFAULT_BASE).rstrip('/')}/invite/{token}")
    print(f"a personal link for {args.name.strip()}: they rate their assignment in the browser "
          f"while `simrate serve {args.project}` runs; `simrate team remove {args.project} "
          f"{args.name.strip()}` revokes it", file=sys.stderr)
    return 0


def _invite_through(args: argparse.Namespace, project, service: str) -> int:
    """`team invite` on a hub replica with a sync service: a sync link, the person made an
    annotator of the hub when she is none yet."""
    from simrate.hub.link.client import make_link
    from simrate.hub.team.tokens import invite_through_service

    token, login = with_password(lambda pw: invite_through_service(project, args.name, pw))
    _keep_service(args, project)
    name = args.name.strip()
    print(make_link(args.base_url or service, token))
    print(f"a personal link for {name} (login {login}): they join with `simrate team join "
          f"LINK {login}.simrate` and sync through `simrate serve {args.project}` at "
          f"{service}; keep it secret; `simrate team remove {args.project} {name}` revokes "
          "it", file=sys.stderr)
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
    print(f"{args.project}: published to {args.url} ({state}): {counted(report.items, 'item')}, "
          f"{counted(report.ratings, 'rating')}, {counted(report.adjudications, 'adjudication')}")
    for n, line in enumerate(report.off_scale):  # scores an older hub let in
        print(f"{args.project}: {line}" if n == 0 else line)
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
    from simrate.hub.team.people import add_person
    from simrate.hub.team.tokens import issue_token

    with Project.open(args.project) as project:
        service = _service(args, project) if args.role == "annotator" else ""
        secret = None if service else _new_password(args.name)

        def act(pw: str | None) -> tuple[str, str, str]:
            login, url = add_person(project, args.name, args.role, secret, pw, args.login,
                                    reset=args.reset_password)
            return login, url, (issue_token(project, args.name, pw)[0] if service else "")

        login, url, token = with_password(act)
        _keep_service(args, project)
    print(f"added {args.name} as {'an annotator' if args.role == 'annotator' else 'an organizer'}"
          f" (login {login})")
    if token:
        _print_link(args, login, service, token)
    else:
        _print_direct(args, login, url, secret)
    return 0


def _print_link(args: argparse.Namespace, login: str, service: str, token: str) -> None:
    from simrate.hub.link.client import make_link

    print(f"they join with: simrate team join '{make_link(service, token)}' {login}.simrate")
    print(f"the link is their way in, through `simrate serve {args.project}` at {service}: "
          "give it to them as you would a password; `simrate team remove "
          f"{args.project} {args.name.strip()}` revokes it")


def _print_direct(args: argparse.Namespace, login: str, url: str, secret: str | None) -> None:
    from simrate.hub.link.connection import parse_url

    parts = parse_url(url)
    print(f"they join with: simrate team join '{url}' {login}.simrate")
    where = f"{parts.get('host', 'localhost')}:{parts.get('port', '5432')}:" \
            f"{parts.get('dbname', '')}:{login}:PASSWORD"
    if secret:
        print("password: the one typed here; tell it to them in person. They keep it in their "
              f"password file (~/.pgpass, a line {where}) or type it when simrate asks.")
    else:
        print(f"no password set: run `simrate team add {args.project} {args.name} --role "
              f"{args.role} --reset-password` to set one")


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
    from pathlib import Path

    from simrate.hub.team.join import join

    wait = _wait(args)
    again = Path(args.local).exists()  # an existing replica takes the new link (rejoin.py)
    project, report = with_password(lambda pw: join(args.url, args.local, pw, wait=wait))
    with project:
        name = project.mode.name or ""
        kind = project.mode.role.value
        own = len(project.ratings())
        items = project.n_items
    who = f"{name} ({kind})" if name else f"an {kind}"
    if again:
        print(f"{args.local}: joined again as {who}, the file kept: sent {report.pushed}, "
              f"pulled {report.pulled}, pending {report.pending}; {counted(items, 'item')}, "
              f"{counted(own, 'rating')}")
    else:
        print(f"{args.local}: joined as {who}: {counted(items, 'item')}, {counted(own, 'rating')}")
    how = " --organizer" if kind == "organizer" else (f" --annotator '{name}'" if name else "")
    print(f"open it with: simrate {args.local}{how}")
    return 0


def _failed_round(exc, path: str, project) -> str:
    """The one line of a round the hub refused; a removed person's names the exact commands
    that bring her back, with this file and her name."""
    from simrate.hub.link.hub_errors import removed_advice
    from simrate.hub.team.sync import pending_count

    if exc.kind != "removed" or removed_advice() not in exc.message:
        return f"{exc.message}; nothing is lost, the changes stay pending"
    mode = project.mode
    exact = removed_advice(path, mode.name or "YOUR_NAME", mode.role.value,
                           pending_count(project))
    return exc.message.replace(removed_advice(), exact)


def _sync(args: argparse.Namespace) -> int:
    from simrate.core.project import Project
    from simrate.hub.link.connection import HubError
    from simrate.hub.team.kept_out import kept_out_count, kept_out_line
    from simrate.hub.team.sync import clock_line, conflict_line, pending_count, sync_once

    wait = _wait(args)
    with Project.open(args.project) as project:
        try:
            started = time.time()
            done = with_password(lambda pw: sync_once(project, pw, wait=wait))
            report, offset = done.as_dict(), done.clock_offset
            kept_out = kept_out_count(project, started)
        except HubError as exc:
            if args.json:  # the hub value says which it is: unreachable, full, ...
                print(json.dumps({"pushed": 0, "pulled": 0, "pending": pending_count(project),
                                  "conflicts": 0, "hub": exc.state, "kept_out": 0}))
            raise SimrateError(_failed_round(exc, args.project, project),
                               args.project) from None
    if args.json:  # kept_out: values of this round off the scale (kept_out.py)
        print(json.dumps({**report, "kept_out": kept_out}))
    else:
        print(f"{args.project}: pushed {report['pushed']}, pulled {report['pulled']}, "
              f"pending {report['pending']}")
        if report["conflicts"]:
            print(f"{args.project}: "
                  f"{conflict_line(report['conflicts'], report.get('conflict_list', ()))}")
    if clock_line(offset):
        print(f"simrate: warning: {clock_line(offset)}", file=sys.stderr)
    if kept_out:
        print(f"simrate: warning: {kept_out_line(kept_out)}", file=sys.stderr)
    return 0
