"""The description of every command-line argument a command's `add_parser` declares without one.

`describe_options` writes them into the parsers themselves, so `simrate COMMAND --help`
shows them, and the site's CLI reference (tools/docs_hooks.py) reads the same parsers: one
text, in the terminal and on the site. tests/commands/parser/test_option_help.py fails on
an argument left without a description.

Texts are looked up by the command's path and the argument's dest (`("export", "format")`),
then by dest alone for the arguments that mean the same in every command. A literal percent
sign is written `%%` (argparse expands `%(default)s` in help texts).
"""

from __future__ import annotations

import argparse

from simrate.commands.parser.parser_tree import arguments, parsers

# Clauses that more than one argument's text says, each written here once.
_CHANGE_LOG = "for the change log"
_LOGIN_DEFAULT = "(default: your login name)"
_WHO = f"who is doing this, {_CHANGE_LOG}"
_HUB_DATABASE = "a libpq URL or connection string to the hub's database"
_GOLD_HOW = "how an item without a verdict gets its gold"
_CHECK_ITEMS = "check items mixed into each task"
_ITS_OWN = "an existing one keeps its own"
_SERVICE_FORGETS = "(`--service direct` forgets it)"
_KEEPS_SERVICE = "the file keeps URL for later adds and invites " + _SERVICE_FORGETS
_STUDY_NAME = "the web study's name (crowd study NAME)"


def _new_study(default: str) -> str:
    """A study setting's default, which only a new study takes."""
    return f"(default for a new study: {default}; {_ITS_OWN})"


def _page_text(what: str) -> str:
    """A Markdown file the study's first page shows."""
    return f"a Markdown file of {what}, shown before Start (no raw HTML)"


#: Arguments that mean the same in every command that has them.
SAME_EVERYWHERE = {
    "project": "the project file (.simrate)",
    "json": "print one JSON object on standard output and nothing else there",
    "dataset": "only the items of this dataset",
    "seed": "the seed of the random draw: the same seed draws the same items (default "
            "%(default)s)",
    "annotator": "the annotator's name",
    "per_item": "how many annotators rate each item",
    "per_task": "items in each task",
    "url": f"{_HUB_DATABASE}, without a password",
    "test": "binary paraphrase pairs, or ranking questions",
    "by": f"{_WHO} {_LOGIN_DEFAULT}",
    "study": _STUDY_NAME,
}

#: Arguments whose meaning depends on the command, by (command path, dest).
BY_COMMAND = {
    ("new", "project"): "the project file to create (.simrate)",
    ("new", "title"): "the project's title, shown in the window",
    ("import", "files"): "the files to import: pairs, ratings, an annotator's package or "
                         "another project (several at once are one import)",
    ("import", "format"): "the input format (default auto: from the file's name and content)",
    ("import", "annotator"): "whose ratings the file holds, when it has no annotator column",
    ("import", "dataset"): "the dataset name given to the imported items (default: from the "
                           "file, its name or a dataset column)",
    ("import", "by"): _WHO,
    ("agreement", "project"): SAME_EVERYWHERE["project"] + "; or give --ratings instead",
    ("agreement", "ratings"): "a ratings file (item_id, then one column per annotator) to "
                              "measure without a project",
    ("agreement", "level"): "the level of measurement of alpha (all: the four)",
    ("agreement", "by"): "alpha for each dataset or genre as well as over all items",
    ("agreement", "ci"): "add 95%% intervals to alpha (a bootstrap)",
    ("agreement", "ci_method"): "how the intervals are drawn: units (bootstrap over items, "
                                "the default) or hayes (Hayes and Krippendorff's)",
    ("flagged", "threshold"): "with --rule: that rule's threshold, kept in the project "
                              "(range: the spread, uncertain and auto: the ratings' SD); "
                              "alone: list once at this threshold without changing the project",
    ("flagged", "rule"): "set the project's flag rule: range (ratings this far apart), "
                         "uncertain (ratings' SD this large), auto (range up to 3 ratings, "
                         "uncertain above; the default)",
    ("gold", "method"): f"{_GOLD_HOW}: the mean of its ratings, their median, or the rater "
                        "model (each rater's bias and noise estimated from all ratings; with "
                        "a 90%% interval)",
    ("export", "gold"): f"{_GOLD_HOW} (default mean; model: the rater model, adding gold_low "
                        "and gold_high)",
    ("adjudicate", "item_id"): "the item's id, as `simrate flagged` lists it",
    ("adjudicate", "note"): "a note kept with the verdict (why this score)",
    ("adjudicate", "by"): f"who adjudicates, {_CHANGE_LOG} {_LOGIN_DEFAULT}",
    ("export", "out"): "the gold file to write (written whole or not at all)",
    ("export", "format"): "the gold file's format (default: from OUT's ending: .tsv/.tab, "
                          ".csv, .xlsx, .jsonl/.ndjson, .txt/.gs/.sts, .label/.output)",
    ("export", "allow_unresolved"): "export even while flagged items are not adjudicated or "
                                    "items have no rating (their gold is left empty)",
    ("pyramid", "files"): "the pyramid files (.pyr) and their peer annotations (.pan)",
    ("pyramid", "out"): "the tab-separated file of pairs or questions to write",
    ("pyramid", "min_words"): "leave out contributors shorter than this many words",
    ("pyramid", "shared_words"): "which words count as shared: all, or content words only",
    ("pyramid", "tokens"): "how a text is cut into words: words (letters and digits) or "
                           "whitespace",
    ("pyramid", "contributor_text"): "a contributor's text: its parts, or its label",
    ("evaluate", "task"): "the shared task whose measures and file layout to use",
    ("evaluate", "files"): "pairs of files: a gold key, then a system's output scored "
                           "against it",
    ("package", "out"): "the annotator's package to write, a standalone project file",
    ("package", "annotator"): "who the package is for: the items assigned to them, blind",
    ("package", "sample"): "only N items, drawn at random (see --seed)",
    ("annotators", "by"): _WHO,
    ("assign", "annotators"): "the annotators to split the items among",
    ("assign", "per_item"): "how many of the annotators rate each item",
    ("checks", "item_ids"): "the items to mark (or unmark with --remove)",
    ("checks", "from_reference"): "mark every item that has a reference score, with that "
                                  "score",
    ("checks", "remove"): "unmark the items instead of marking them",
    ("team add", "name"): "the person's name, as their ratings carry it",
    ("team add", "role"): "what the person may do on the hub: rate, or also organize",
    ("team add", "service"): "an annotator syncs through simrate serve at URL (its address "
                             "as people reach it): she gets a sync link instead of a "
                             f"password; {_KEEPS_SERVICE}",
    ("team remove", "name"): "the person whose login is revoked",
    ("team invite", "service"): "on a hub replica: the person syncs through simrate serve "
                                "at URL, and the link is one `simrate team join` takes; "
                                + _KEEPS_SERVICE,
    ("team token", "service"): "the sync service's address as people reach it, kept in the "
                               "file for later adds, invites and tokens " + _SERVICE_FORGETS,
    ("team token", "name"): "the annotator the sync link is for (they join with it)",
    ("team invite", "name"): "the person the link is for",
    ("team harden", "url"): f"{_HUB_DATABASE} as a superuser, without a password",
    ("team join", "local"): "the replica file to make on this machine (.simrate)",
    ("crowd export", "out"): "the CSV file of tasks to upload to the platform",
    ("crowd export", "checks"): _CHECK_ITEMS + " (default %(default)s)",
    ("crowd study", "name"): "the study's name, part of its web address",
    ("crowd study", "per_task"): SAME_EVERYWHERE["per_task"] + " (required for a new study; "
                                 + _ITS_OWN + ")",
    ("crowd study", "checks"): f"{_CHECK_ITEMS} {_new_study('0')}",
    ("crowd study", "per_item"): f"web ratings wanted for each item {_new_study('5')}",
    ("crowd study", "lease_minutes"): "minutes a worker has for a task before it goes back "
                                      f"to the pool {_new_study('60')}",
    ("crowd study", "completion_url"): "where the last page sends the worker (the "
                                       "platform's completion link)",
    ("crowd study", "close"): "close the study: no new tasks are handed out",
    ("crowd study", "instructions"): _page_text("the requester's instructions"),
    ("crowd study", "consent"): _page_text("the consent text"),
    ("crowd review", "out"): "a folder for the platforms' files: approve.txt, reject.csv, "
                             "return.csv, apart.csv, and mturk.csv for Mechanical Turk tasks",
    ("crowd review", "qualified"): "the approved workers, to invite again: qualified.txt in "
                                   "--out, else one id a line on standard output",
    ("crowd review", "tolerance"): "a check fails when the score is more than X from its "
                                   "known score (default: 0.375 of the scale's width, 1.5 on 0-4)",
    ("crowd bonus", "per_hour"): "pay RATE for each hour on task, as the server measured it",
    ("crowd bonus", "per_rating"): "pay AMOUNT for each rating given (checks included)",
    ("crowd bonus", "top_up_to"): "raise each bonus so that reward plus bonus reaches RATE "
                                  "an hour at the study's median completion time",
    ("crowd bonus", "reward"): "the reward each submission was already paid on the platform "
                               "(default %(default)s), for --top-up-to",
    ("crowd bonus", "out"): "write the ID,amount lines to FILE (default: standard output)",
    ("crowd bonus", "tolerance"): "as crowd review --tolerance: who is approved, so paid",
    ("serve", "host"): "the address to listen on (default %(default)s: this machine only)",
    ("serve", "port"): "the port to listen on (default %(default)s)",
    ("window", "project"): "the project file to open (default: the start page)",
    ("window", "annotator"): "who is rating, instead of the \"Who is rating?\" question",
    ("window", "organizer"): "open in organizer mode: every rating shown, adjudication, "
                             "agreement",
}

def describe_options(parser: argparse.ArgumentParser, path: str = "") -> None:
    """Give every argument of `parser` and its subcommands that has no description the one
    written above (the `path` of the top parser is '' for the commands, 'window' for the
    window's own parser)."""
    for where, each in parsers(parser, path):
        for action in arguments(each):
            if not action.help:
                action.help = BY_COMMAND.get((where, action.dest)) or SAME_EVERYWHERE.get(
                    action.dest)


def undescribed(parser: argparse.ArgumentParser, path: str = "simrate") -> list[str]:
    """`simrate export --format` for each argument still without a description."""
    return [f"{where} {action.option_strings[0] if action.option_strings else action.dest}"
            for where, each in parsers(parser, path) for action in arguments(each)
            if not (action.help or "").strip()]
