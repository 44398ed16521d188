"""simrate crowd export PROJECT OUT.csv --per-task K [--checks C] [--seed S]
simrate crowd study PROJECT NAME --per-task K [--checks C] [--per-item R] [--lease-minutes M]
                    [--completion-url URL] [--close]
                    [--completion-code CODE] [--partial-code CODE] [--code-per-task]
                    [--prolific-study ID] [--instructions FILE.md] [--consent FILE.md]
                    [--allow-frame-from ORIGIN] [--redirect-seconds N]
                    [--allow-workers FILE] [--block-workers FILE] [--failed-checks C]
                    [--training N [--pass RULE] [--screen-out-code CODE]]
simrate crowd status PROJECT [--json]
simrate crowd review PROJECT STUDY [--json] [--out DIR] [--qualified] [--tolerance X]
simrate crowd bonus PROJECT STUDY (--per-hour RATE | --per-rating AMOUNT) [--top-up-to RATE]
                    [--reward AMOUNT] [--out FILE] [--json]
(review and bonus: crowd_pay.py)"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from pathlib import Path

from simrate.commands.base.option_types import count, lease_minutes
from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate crowd` and its actions."""
    p = sub.add_parser("crowd", help="crowd batches for Turk-style platforms")
    crowd = p.add_subparsers(dest="crowd_command", metavar="ACTION", parser_class=type(p))
    crowd.required = True
    q = crowd.add_parser("export", help="write one row per task: K items plus C checks")
    q.add_argument("project")
    q.add_argument("out", metavar="OUT.csv")
    q.add_argument("--per-task", type=count, required=True, metavar="K")
    q.add_argument("--checks", type=count, default=0, metavar="C")
    q.add_argument("--seed", type=count, default=0)
    _add_study_parser(crowd)
    q = crowd.add_parser("status", help="tasks, ratings per item and workers of each study")
    q.add_argument("project")
    q.add_argument("--json", action="store_true")
    from simrate.commands.team import crowd_pay

    crowd_pay.add_parsers(crowd)


def _add_study_parser(crowd: argparse._SubParsersAction) -> None:
    q = crowd.add_parser("study", help="create, change or close a web study (simrate serve)")
    q.add_argument("project")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--per-task", type=count, default=None, metavar="K")
    q.add_argument("--checks", type=count, default=None, metavar="C")
    q.add_argument("--per-item", type=count, default=None, metavar="R")
    q.add_argument("--lease-minutes", type=lease_minutes, default=None, metavar="M")
    q.add_argument("--completion-url", default=None, metavar="URL")
    q.add_argument("--close", action="store_true")
    q.add_argument("--by", default=None)
    q.add_argument("--new-web-password", action="store_true",
                   help="on a hub: give the login simrate serve uses a new password")
    add_study_page_options(q)


def run(args: argparse.Namespace) -> int:
    """Run one crowd action."""
    if args.crowd_command == "study":
        return run_study(args)
    if args.crowd_command == "status":
        return run_status(args)
    if args.crowd_command in ("review", "bonus"):
        from simrate.commands.team import crowd_pay

        return crowd_pay.run_review(args) if args.crowd_command == "review" \
            else crowd_pay.run_bonus(args)
    return run_export(args)


def run_export(args: argparse.Namespace) -> int:
    """Write the batch CSV a Turk-style platform reads, and record the batch in the project.

    The batch is recorded only once the file is written in full and on disk (before it
    takes its name): a write that fails (a full disk) records nothing, and a record that
    fails leaves no file. Either way the project is as it was."""
    from simrate.core.project import Project
    from simrate.formats.output.atomic import atomic_open, check_writable_target
    from simrate.formats.output.leftovers import is_special

    # a device or pipe (/dev/stdout) is written last, from a finished temporary file
    special = is_special(Path(args.out))
    check_writable_target(args.out, [args.project])  # before the batch is recorded
    from simrate.core.team.crowd import batch_frame, make_batch, record_batch

    with Project.open(args.project) as project:
        batch = make_batch(project, args.per_task, args.checks, args.seed)
        frame = batch_frame(batch, project)
        with atomic_open(args.out) as handle:
            frame.to_csv(handle, index=False, lineterminator="\r\n")
            handle.flush()
            os.fsync(handle.fileno())  # a full disk shows here at the latest
            if not special:
                record_batch(project, batch)
        if special:
            record_batch(project, batch)
    slots = sum(len(ids) for ids in batch.tasks.values())
    print(f"{args.out}: {counted(len(batch.tasks), 'task')} of up to {counted(batch.width, 'item')} "
          f"({args.per_task} + {args.checks} checks), {slots} slots; batch {batch.name!r} "
          "recorded in the project")
    if frame.shape[0] and len(batch.tasks[str(frame["task"].iat[-1])]) < batch.width:
        print(f"{args.out}: the last task is shorter; its empty slots have an empty id",
              file=sys.stderr)
    return 0


def _who(given: str | None) -> str:
    if given:
        return given
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "organizer"


def add_study_page_options(q: argparse.ArgumentParser) -> None:
    """The options of what the worker's page shows (`crowd study`)."""
    from simrate.commands.base.option_types import text_option, whole_number

    q.add_argument("--completion-code", type=text_option, default=None, metavar="CODE",
                   help="the code the platform expects (Prolific: the study's completion code)")
    q.add_argument("--partial-code", type=text_option, default=None, metavar="CODE",
                   help="the code shown for a task that ran out or whose study closed")
    q.add_argument("--code-per-task", action=argparse.BooleanOptionalAction, default=None,
                   help="a code of its own per task (crowd status --json lists them)")
    q.add_argument("--prolific-study", type=text_option, default=None, metavar="ID",
                   help="refuse a start whose STUDY_ID is another")
    q.add_argument("--instructions", default=None, metavar="FILE.md")
    q.add_argument("--consent", default=None, metavar="FILE.md")
    q.add_argument("--allow-frame-from", type=text_option, default=None, metavar="ORIGIN",
                   help="let this origin show the page in a frame (Mechanical Turk)")
    q.add_argument("--redirect-seconds", type=whole_number, default=None, metavar="N",
                   help="send the worker to --completion-url N seconds after the code (0: "
                        "never, the default; the worker presses the button)")
    q.add_argument("--failed-checks", type=count, default=None, metavar="C",
                   help="after C failed attention checks the page warns the worker, after "
                        "C+1 the task ends with the partial code (1 follows Prolific's rule "
                        "of two; 0 turns it off; plain project files only)")
    q.add_argument("--training", type=count, default=None, metavar="N",
                   help="N practice pairs (check items) first, with the reference shown after "
                        "each; never in the results (0: none; plain project files only)")
    q.add_argument("--pass", dest="pass_rule", type=text_option, default=None, metavar="RULE",
                   help="what the practice must meet: K@D (K answers within D of the "
                        "reference) or mae<=X (default: every answer within 0.375 of the "
                        "scale's width)")
    q.add_argument("--screen-out-code", type=text_option, default=None, metavar="CODE",
                   help="the code shown to a worker the practice screens out")
    q.add_argument("--allow-workers", default=None, metavar="FILE",
                   help="only these workers may start (ids one a line, as crowd review "
                        "--qualified writes them; an empty file takes the list away)")
    q.add_argument("--block-workers", default=None, metavar="FILE",
                   help="these workers are shown a page that turns them away, never a task "
                        "(an empty file takes the list away)")


def _markdown_file(name: str | None) -> str | None:
    """The text of an instructions or consent file (UTF-8); SimrateError naming the file
    and line of a byte that is not. A regular file of at most MAX_MARKDOWN_BYTES: a pipe,
    device or folder is refused before anything is read (core/base/inputs.py)."""
    from simrate.core.base.inputs import MAX_MARKDOWN_BYTES, mib, read_bounded
    from simrate.core.base.rules import MAX_OPTION_TEXT

    if name is None:
        return None
    data = read_bounded(name, MAX_MARKDOWN_BYTES, pipes=False,
                        too_large=f"larger than {mib(MAX_MARKDOWN_BYTES)}: an instructions "
                                  f"or consent text is at most {MAX_OPTION_TEXT:,} characters")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SimrateError("not UTF-8 text", name, line) from None


def _page_options(args: argparse.Namespace) -> dict:
    return {"partial_code": args.partial_code, "code_per_task": args.code_per_task,
            "prolific_study": args.prolific_study,
            "instructions": _markdown_file(args.instructions),
            "consent": _markdown_file(args.consent), "frame_from": args.allow_frame_from,
            "redirect_seconds": args.redirect_seconds, "failed_checks": args.failed_checks,
            "training": args.training, "pass_rule": args.pass_rule,
            "screen_out_code": args.screen_out_code,
            "allow_workers": _worker_file(args.allow_workers, "--allow-workers"),
            "block_workers": _worker_file(args.block_workers, "--block-workers")}


def _worker_file(name: str | None, flag: str) -> list[str] | None:
    """The rater keys of a worker list file (crowdweb/access.py), read through the bounded
    reader: a regular file or a pipe, at most MAX_LIST_BYTES."""
    from simrate.core.base.inputs import mib, read_bounded
    from simrate.core.team.crowdweb.access import MAX_LIST_BYTES, worker_list

    if name is None:
        return None
    data = read_bounded(name, MAX_LIST_BYTES,
                        too_large=f"{flag}: larger than {mib(MAX_LIST_BYTES)}")
    return worker_list(data, flag, name)


def run_study(args: argparse.Namespace) -> int:
    """Create, change or close a web study kept in the project."""
    from simrate.core.project import Project
    from simrate.core.team.web_study import study_status
    from simrate.hub.team.web_hub import set_study
    from simrate.services.crowd.study_pool import refuse_empty_study

    options = _page_options(args)
    with Project.open(args.project) as project:
        refuse_empty_study(project, args.name, args.per_item, args.close)
        study, what = set_study(project, args.name, args.per_task, args.checks, args.per_item,
                                args.lease_minutes, args.completion_url, args.close,
                                by=_who(args.by),
                                new_web_password=getattr(args, "new_web_password", False),
                                completion_code=args.completion_code, options=options)
        if not project.mode.plain:
            from simrate.hub.team.web_hub import mirror_hub_studies, password_file, web_login

            mirror_hub_studies(project)
            print(f"{args.project}: the study is on the hub; simrate serve connects as "
                  f"{web_login(project)}, whose password is in {password_file()}")
        left = study_status(project)[study.name]["tasks"]["left"]
    print(f"{args.project}: study {study.name!r} {what}: tasks of "
          f"{counted(study.per_task, 'item')} + {counted(study.checks, 'check')}, at most "
          f"{counted(study.per_item, 'web rating')} per item, leases of "
          f"{counted(study.lease_minutes, 'minute')}; {'open' if study.open else 'closed'}, "
          f"{counted(left, 'task')} left")
    for key, what in (("allow_workers", "may start"), ("block_workers", "are kept out")):
        if study.option(key):
            print(f"{counted(len(study.option(key)), 'listed worker')} {what} "
                  f"(--{key.replace('_', '-')})")
    if study.open:
        print(f"worker link: /study/{study.name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
              f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}} "
              f"(or ?worker=ID); completion code {study.code}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Each study's tasks done, leased and left, ratings per item and workers."""
    from simrate.core.project import Project
    from simrate.core.team.web_study import study_status

    with Project.open(args.project) as project:
        if project.mode.organizer:
            from simrate.hub.team.web_hub import mirror_hub_studies

            try:
                mirror_hub_studies(project)  # the hub's leases and ratings, into the file
            except SimrateError as exc:
                print(f"{args.project}: the hub's figures could not be read ({exc.message}); "
                      "showing those of the last time", file=sys.stderr)
        status = study_status(project)
    if args.json:
        print(json.dumps({"studies": status}, ensure_ascii=False, indent=1))
        return 0
    if not status:
        print(f"{args.project}: no web studies (create one: simrate crowd study)")
    for name, entry in status.items():
        tasks = entry["tasks"]
        per_item = ", ".join(f"{n}: {c}" for n, c in entry["ratings_per_item"].items())
        print(f"{name} ({'open' if entry['open'] else 'closed'}): "
              f"{counted(tasks['done'], 'task')} done, {tasks['leased']} leased, "
              f"{tasks['expired']} timed out, {tasks['left']} left; "
              f"items by web ratings {{{per_item}}}; {counted(len(entry['workers']), 'worker')}")
        for worker, figures in entry["workers"].items():
            print(f"  {worker}: {counted(figures['tasks_done'], 'task')} done, "
                  f"{counted(figures['ratings'], 'rating')}")
    return 0
