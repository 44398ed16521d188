"""The description of every command-line argument a command's `add_parser` declares without one.

`describe_options` writes them into the parsers themselves, so `simrate COMMAND --help`
shows them, and the site's CLI reference (tools/docs_hooks.py) reads the same parsers: one
text, in the terminal and on the site. tests/cli/test_option_help.py fails on an argument
left without a description.

Texts are looked up by the command's path and the argument's dest (`("export", "format")`),
then by dest alone for the arguments that mean the same in every command. A literal percent
sign is written `%%` (argparse expands `%(default)s` in help texts).
"""

from __future__ import annotations

import argparse

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
    "url": "a libpq URL or connection string to the hub's database, without a password",
    "test": "binary paraphrase pairs, or ranking questions",
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
    ("agreement", "project"): "the project file (.simrate); or give --ratings instead",
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
    ("gold", "method"): "how an item without a verdict gets its gold: the mean of its "
                        "ratings, their median, or the rater model (each rater's bias and "
                        "noise estimated from all ratings; with a 90%% interval)",
    ("export", "gold"): "how an item without a verdict gets its gold (default mean; model: "
                        "the rater model, adding gold_low and gold_high)",
    ("adjudicate", "item_id"): "the item's id, as `simrate flagged` lists it",
    ("adjudicate", "note"): "a note kept with the verdict (why this score)",
    ("adjudicate", "by"): "who adjudicates, for the change log (default: your login name)",
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
    ("assign", "annotators"): "the annotators to split the items among",
    ("assign", "per_item"): "how many of the annotators rate each item",
    ("assign", "by"): "who is doing this, for the change log (default: your login name)",
    ("checks", "item_ids"): "the items to mark (or unmark with --remove)",
    ("checks", "from_reference"): "mark every item that has a reference score, with that "
                                  "score",
    ("checks", "remove"): "unmark the items instead of marking them",
    ("checks", "by"): "who is doing this, for the change log (default: your login name)",
    ("team add", "name"): "the person's name, as their ratings carry it",
    ("team add", "role"): "what the person may do on the hub: rate, or also organize",
    ("team add", "service"): "an annotator syncs through simrate serve at URL (its address "
                             "as people reach it): she gets a sync link instead of a "
                             "password; the file keeps URL for later adds and invites "
                             "(`--service direct` forgets it)",
    ("team remove", "name"): "the person whose login is revoked",
    ("team invite", "service"): "on a hub replica: the person syncs through simrate serve "
                                "at URL, and the link is one `simrate team join` takes; the "
                                "file keeps URL for later adds and invites (`--service "
                                "direct` forgets it)",
    ("team token", "service"): "the sync service's address as people reach it, kept in the "
                               "file for later adds, invites and tokens (`--service direct` "
                               "forgets it)",
    ("team token", "name"): "the annotator the sync link is for (they join with it)",
    ("team invite", "name"): "the person the link is for",
    ("team harden", "url"): "a libpq URL or connection string to the hub's database as a "
                            "superuser, without a password",
    ("team join", "local"): "the replica file to make on this machine (.simrate)",
    ("crowd export", "out"): "the CSV file of tasks to upload to the platform",
    ("crowd export", "checks"): "check items mixed into each task (default %(default)s)",
    ("crowd study", "name"): "the study's name, part of its web address",
    ("crowd study", "per_task"): "items in each task (required for a new study; an "
                                 "existing one keeps its own)",
    ("crowd study", "checks"): "check items mixed into each task (default for a new study: "
                               "0; an existing one keeps its own)",
    ("crowd study", "per_item"): "web ratings wanted for each item (default for a new "
                                 "study: 5; an existing one keeps its own)",
    ("crowd study", "lease_minutes"): "minutes a worker has for a task before it goes back "
                                      "to the pool (default for a new study: 60; an existing "
                                      "one keeps its own)",
    ("crowd study", "completion_url"): "where the last page sends the worker (the "
                                       "platform's completion link)",
    ("crowd study", "close"): "close the study: no new tasks are handed out",
    ("crowd study", "instructions"): "a Markdown file of the requester's instructions, shown "
                                     "before Start (no raw HTML)",
    ("crowd study", "consent"): "a Markdown file of the consent text, shown before Start "
                                "(no raw HTML)",
    ("crowd study", "by"): "who is doing this, for the change log (default: your login "
                           "name)",
    ("crowd review", "study"): "the web study's name (crowd study NAME)",
    ("crowd review", "out"): "a folder for the platforms' files: approve.txt, reject.csv, "
                             "return.csv, apart.csv, and mturk.csv for Mechanical Turk tasks",
    ("crowd review", "qualified"): "the approved workers, to invite again: qualified.txt in "
                                   "--out, else one id a line on standard output",
    ("crowd review", "tolerance"): "a check fails when the score is more than X from its "
                                   "known score (default: 0.375 of the scale's width, 1.5 on 0-4)",
    ("crowd bonus", "study"): "the web study's name (crowd study NAME)",
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
    for action in parser._actions:  # argparse keeps no public list of its arguments
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                describe_options(child, f"{path} {name}".strip())
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            action.help = BY_COMMAND.get((path, action.dest)) or SAME_EVERYWHERE.get(
                action.dest)


def undescribed(parser: argparse.ArgumentParser, path: str = "simrate") -> list[str]:
    """`simrate export --format` for each argument still without a description."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                missing += undescribed(child, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction) and not (action.help or "").strip():
            name = action.option_strings[0] if action.option_strings else action.dest
            missing.append(f"{path} {name}")
    return missing
