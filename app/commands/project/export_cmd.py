"""simrate export PROJECT OUT [--format {tsv,csv,xlsx,sts,pit,jsonl,pyramid}] [--allow-unresolved]
               [--gold {mean,median,model}]
simrate export PROJECT DIR --format dataset [--split NAME[=DATASET,...]]... [--add]
               [--license SPDX] [--title TEXT] [--language CODE] [--creator NAME]...
               [--citation FILE] [--url URL] [--version V] [--keep-column NAME]...
               [--columns {simrate,hf}] [--keep-rater-names] [--with-notes]
               [--allow-unresolved]"""

from __future__ import annotations

import argparse
import sys

from simrate.commands.base.option_types import text_option
from simrate.commands.base.progress import TerminalProgress
from simrate.core.base.errors import SimrateError
from simrate.core.base.inputs import read_bounded
from simrate.core.project import Project
from simrate.core.review.crowd_gold import METHODS
from simrate.formats.catalog.registry import names
from simrate.services.dataset.dataset_export import DatasetOptions
from simrate.services.dataset.dataset_splits import parse_splits
from simrate.services.exports.export import export_project

#: The options of --format dataset, as (attribute, option).
DATASET_OPTIONS = (("split", "--split"), ("license", "--license"), ("title", "--title"),
                   ("language", "--language"), ("keep_rater_names", "--keep-rater-names"),
                   ("with_notes", "--with-notes"), ("keep_columns", "--keep-column"),
                   ("add", "--add"), ("creators", "--creator"), ("citation", "--citation"),
                   ("url", "--url"), ("version", "--version"), ("columns", "--columns"))
#: The most of a BibTeX file --citation reads.
MAX_CITATION_BYTES = 1 << 20


def read_citation(path: str) -> str:
    """The BibTeX text of --citation FILE (UTF-8), through the core's bounded reader."""
    data = read_bounded(path, MAX_CITATION_BYTES, pipes=False)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SimrateError(f"--citation: not UTF-8 text (byte {exc.start})", path) from None


def dataset_options(args: argparse.Namespace) -> DatasetOptions | None:
    """The dataset options given; None for another format (which refuses them)."""
    given = [option for name, option in DATASET_OPTIONS
             if getattr(args, name, None) not in (None, False)]
    if args.format != "dataset":
        if given:
            raise SimrateError(f"{given[0]} belongs to --format dataset (a folder with a data "
                               "card); give --format dataset or leave it out")
        return None
    chosen = {name: getattr(args, name) for name, _ in DATASET_OPTIONS
              if getattr(args, name, None) is not None}
    chosen["split"], chosen["splits"] = parse_splits(args.split or [])
    for name in ("keep_columns", "creators"):
        chosen[name] = tuple(chosen.get(name) or ())
    if args.citation is not None:
        chosen["citation"] = read_citation(args.citation)
    return DatasetOptions(**chosen)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate export`."""
    p = sub.add_parser("export", help="export gold scores")
    p.add_argument("project")
    p.add_argument("out", metavar="OUT")
    p.add_argument("--format", choices=names("write"), default=None)
    p.add_argument("--allow-unresolved", action="store_true")
    p.add_argument("--gold", choices=METHODS, default="mean")
    _add_dataset_options(p)


def _add_dataset_options(p: argparse.ArgumentParser) -> None:
    """The options of --format dataset."""
    p.add_argument("--split", type=text_option, action="append", default=None,
                   metavar="NAME[=DATASET,...]",
                   help="dataset: the split of the data files (train); repeat as "
                   "NAME=DATASET,... for one split per group of the items' datasets")
    p.add_argument("--add", action="store_true",
                   help="dataset: add the split(s) to the dataset folder already at DIR")
    p.add_argument("--license", type=text_option, default=None, metavar="SPDX",
                   help="dataset: the licence id for the card (unknown)")
    p.add_argument("--title", type=text_option, default=None, metavar="TEXT",
                   help="dataset: the card's title (the project's title)")
    p.add_argument("--language", type=text_option, default=None, metavar="CODE",
                   help="dataset: the texts' language for the card (en)")
    p.add_argument("--keep-rater-names", action="store_true",
                   help="dataset: raters under their names, not pseudonyms")
    p.add_argument("--with-notes", action="store_true",
                   help="dataset: include raters' and adjudicators' notes")
    p.add_argument("--creator", dest="creators", action="append", default=None,
                   type=text_option, metavar="NAME",
                   help="dataset: a creator (and publisher) for Croissant and the citation "
                   "(repeatable)")
    p.add_argument("--citation", default=None, metavar="FILE",
                   help="dataset: a BibTeX file: the entry to cite (default: one made from "
                   "the title, creators, year and version)")
    p.add_argument("--url", type=text_option, default=None, metavar="URL",
                   help="dataset: the dataset's page, http(s)://")
    p.add_argument("--version", type=text_option, default=None, metavar="V",
                   help="dataset: the dataset's version, MAJOR.MINOR.PATCH (1.0.0)")
    p.add_argument("--columns", choices=("simrate", "hf"), default=None,
                   help="dataset: gold column names: simrate (left, right, gold) or hf "
                   "(sentence1, sentence2, score)")
    p.add_argument("--keep-column", dest="keep_columns", action="append", default=None,
                   type=text_option, metavar="NAME",
                   help="dataset: publish this source column too (repeatable); only ids, "
                   "texts, dataset, genre and reference go out by default")


def run(args: argparse.Namespace) -> int:
    """Write the project's gold scores; refused (exit 3) while items are unresolved."""
    options = dataset_options(args)
    with Project.open(args.project) as project, \
            TerminalProgress("export", "rows") as progress:  # shown on a terminal only
        report = export_project(project, args.out, args.format, args.allow_unresolved,
                                dataset=options, gold_method=args.gold, progress=progress)
    how = "chosen from the file name; --format overrides" if report.format_from_extension \
        else "as asked"
    sources = ", ".join(f"{count} {source}" for source, count in sorted(report.sources.items()))
    print(f"{report.path}: {report.items} items written as {report.format} ({how}); "
          f"gold from: {sources or 'nothing'}")
    if report.flagged or report.unrated:
        print(f"simrate: warning: exported with {report.flagged} flagged item(s) not "
              f"adjudicated and {report.unrated} item(s) without gold (--allow-unresolved)",
              file=sys.stderr)
    if report.second_look:
        print(f"simrate: warning: {report.second_look} adjudicated item(s) have later ratings "
              "that disagree with the verdict (see `simrate flagged`)", file=sys.stderr)
    for warning in report.warnings:
        print(f"simrate: warning: {warning}", file=sys.stderr)
    return 0
