"""What `simrate COMMAND --help` says beyond the options: a paragraph on what the command
does, and one or two examples; and how every option's default and every required option is
shown. `describe_commands` writes them into the parsers, and the site's CLI reference
(tools/docs_hooks.py) reads the same parsers, so the terminal and the site say one thing.
tests/commands/parser/test_command_help.py fails on a command without a paragraph or an
example, or on an example that does not parse.
"""

from __future__ import annotations

import argparse

from simrate.commands.parser.parser_tree import parsers

#: What each command does, by its path (as `simrate PATH --help` is called).
DESCRIPTIONS = {
    "new": "Create an empty project file on a rating scale: sts (0-5) or clss (0-4), or a "
           "scale file of your own. Items and ratings come in with `simrate import`.",
    "import": "Bring pairs, ratings, an annotator's returned package or a crowd results file "
              "into a project. Each file goes in whole or not at all, and each import that "
              "changed something is one step `--undo` takes back.",
    "info": "Summarize a project: its scale, items, annotators, ratings, flagged and "
            "adjudicated items.",
    "flagged": "List the items whose ratings disagree by the project's flag rule; with "
               "--rule, change the rule (and --threshold, its threshold) the project keeps.",
    "gold": "Each item's gold score: its adjudicated score where there is one, else the mean "
            "or median of its ratings, or the rater model's estimate with an interval.",
    "adjudicate": "Settle a flagged item by giving its gold score, with a note saying why; "
                  "--withdraw takes a verdict back. Every verdict is logged.",
    "export": "Write the gold scores in a shared task's format, a table, an XLSX report or a "
              "dataset folder. Refused while flagged items are not adjudicated, unless "
              "--allow-unresolved.",
    "pyramid": "Turn summary pyramids (.pyr with their .pan peer annotations) into "
               "paraphrase pairs or ranking questions to rate, written as one table.",
    "evaluate": "Score system outputs against gold keys with the shared task's own measures "
                "and file layout (STS, CLSS or PIT); no project is needed.",
    "package": "Write a standalone project file for one annotator, holding only the items "
               "assigned to them and nobody else's scores; import it back when it returns.",
    "annotators": "One row per annotator: ratings, mean, spread, r against the others, "
                  "check-item accuracy and the rater model's bias. Exclude or take back "
                  "annotators here; every such change is logged and reversible.",
    "assign": "Split the items among annotators so that each item is rated by K of them, "
              "spread evenly; `simrate package` then writes each one's file.",
    "checks": "Mark items whose score is known as check items (attention checks for crowd "
              "work), list them, or unmark them. With --from-reference the imported "
              "reference scores are used.",
    "team": "Work as a team through a PostgreSQL hub: publish a project to it, give people "
            "logins or links, join it on another machine and sync.",
    "team publish": "Create the hub in a PostgreSQL database and upload the project to it; "
                    "the file becomes the organizer's replica.",
    "team add": "Give a person a login on the hub, as an annotator or an organizer, or a "
                "sync link when they sync through a service (--service).",
    "team remove": "Revoke a person's login on the hub. Their ratings stay in the project.",
    "team invite": "Make a personal link for one person: to rate in the browser through "
                   "simrate serve, or to join the hub through a sync service.",
    "team token": "Make a sync link for an annotator who syncs through simrate serve on this "
                  "organizer's replica, with no database login of their own.",
    "team join": "Make a local replica of a hub from a URL or a link, or take a new link "
                 "into an existing replica of the same hub and person.",
    "team sync": "One sync round with the hub: push this replica's changes, pull everyone "
                 "else's.",
    "team harden": "As the database's superuser, close the PostgreSQL views that would show "
                   "annotators other people's activity on the hub.",
    "crowd": "Crowd work: batch files for Turk-style platforms, web studies served by "
             "simrate serve, their status, review and bonuses.",
    "crowd export": "Write a batch CSV for a Turk-style platform: one row per task of K "
                    "items plus C check items, recorded in the project.",
    "crowd study": "Create, change or close a web study that simrate serve hands out as "
                   "tasks. A new study needs --per-task; the other settings have defaults "
                   "and, for an existing study, stay as they were unless given. A study with "
                   "no task to serve is refused, saying why.",
    "crowd status": "Each web study's tasks done, leased and left, its ratings per item and "
                    "its workers.",
    "crowd review": "Decide, from the check items, which workers of a web study to approve, "
                    "ask to return or reject, with a reason for each, and write the "
                    "platforms' files.",
    "crowd bonus": "Work out each approved worker's bonus for a web study, by the hour on "
                   "task or by the rating, as the platform's ID,amount file.",
    "machine": "Compare the machine raters of a project with the people: their correlation "
               "and the alternative annotator test, per machine.",
    "check": "Check a project file's integrity and say what is damaged and how to get out; "
             "--salvage copies what can be read into a new file.",
    "serve": "Serve the project's open web studies as a rating page for the browser "
             "(needs the web extra), until stopped with Ctrl+C.",
}

#: One or two example calls per command (each must parse: the test tries them).
EXAMPLES = {
    "new": ["simrate new study.simrate --scale sts --title 'News pairs'"],
    "import": ["simrate import study.simrate pairs.tsv ratings.csv",
               "simrate import study.simrate --undo"],
    "info": ["simrate info study.simrate --json"],
    "agreement": ["simrate agreement study.simrate --by dataset --ci",
                  "simrate agreement --ratings ratings.csv --level all"],
    "flagged": ["simrate flagged study.simrate",
                "simrate flagged study.simrate --rule range --threshold 1.5"],
    "gold": ["simrate gold study.simrate --method median --json"],
    "adjudicate": ["simrate adjudicate study.simrate news-04 3.25 --note 'read again'"],
    "export": ["simrate export study.simrate gold.sts",
               "simrate export study.simrate report.xlsx --allow-unresolved"],
    "pyramid": ["simrate pyramid d061.pyr d061.pan --out pairs.tsv --test binary"],
    "evaluate": ["simrate evaluate --task sts STS.gs.MSRvid.txt system.txt"],
    "package": ["simrate package study.simrate ana.simrate --annotator ana"],
    "annotators": ["simrate annotators study.simrate",
                   "simrate annotators study.simrate --exclude bob --by lead"],
    "assign": ["simrate assign study.simrate ana ben cy --per-item 2"],
    "checks": ["simrate checks study.simrate --from-reference --sample 5%",
               "simrate checks study.simrate news-01 news-02 --score 4"],
    "team": ["simrate team sync study.simrate"],
    "team publish": ["simrate team publish study.simrate postgresql://lead@db.example/study"],
    "team add": ["simrate team add study.simrate ana --role annotator"],
    "team remove": ["simrate team remove study.simrate ana"],
    "team invite": ["simrate team invite study.simrate ana "
                    "--base-url https://rate.example.org"],
    "team token": ["simrate team token study.simrate ana --service https://rate.example.org"],
    "team join": ["simrate team join postgresql://ana@db.example/study mine.simrate"],
    "team sync": ["simrate team sync mine.simrate --json"],
    "team harden": ["simrate team harden postgresql://postgres@db.example/study"],
    "crowd": ["simrate crowd status study.simrate"],
    "crowd export": ["simrate crowd export study.simrate batch.csv --per-task 10 --checks 1"],
    "crowd study": ["simrate crowd study study.simrate pilot --per-task 10 --checks 1",
                    "simrate crowd study study.simrate pilot --close"],
    "crowd status": ["simrate crowd status study.simrate --json"],
    "crowd review": ["simrate crowd review study.simrate pilot --out review/"],
    "crowd bonus": ["simrate crowd bonus study.simrate pilot --per-hour 9 --out bonus.csv"],
    "machine": ["simrate machine study.simrate --json"],
    "check": ["simrate check study.simrate",
              "simrate check study.simrate --salvage rescued.simrate"],
    "serve": ["simrate serve study.simrate --host 0.0.0.0 --port 8000"],
    "window": ["simrate study.simrate --organizer", "simrate --sample"],
}

EXAMPLES_HEADING = "examples:"


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, showing each option's default and marking required options,
    and printing the examples line by line."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.required and action.option_strings and "required" not in text:
            text += " (required)"
        shown = action.default not in (None, False, [], "", argparse.SUPPRESS)
        if shown and action.nargs != 0 and "default" not in text:
            text += " (default %(default)s)"
        return text

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "".join(indent + line + "\n" for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def examples_text(path: str) -> str:
    """The epilog of a command's help: its examples, one a line."""
    return "\n".join([EXAMPLES_HEADING, *(f"  {line}" for line in EXAMPLES.get(path, []))])


def describe_commands(parser: argparse.ArgumentParser, path: str = "") -> None:
    """Give `parser` and its subcommands their paragraph, examples and formatter (`path`:
    '' for the commands' parser, 'window' for the window's)."""
    for where, each in parsers(parser, path):
        each.formatter_class = HelpFormatter
        if where and not each.description and where in DESCRIPTIONS:
            each.description = DESCRIPTIONS[where]
        if where in EXAMPLES:
            each.epilog = examples_text(where)
