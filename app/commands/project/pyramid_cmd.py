"""`simrate pyramid FILE... --out OUT [--test {binary,ranking}] [--json]`."""

from __future__ import annotations

import argparse
import json
import sys

from simrate.commands.base.option_types import count
from simrate.core.base.errors import SimrateError
from simrate.core.pyramid.model import Pyramid
from simrate.core.pyramid.pairs import derive_tests, pyramid_statistics
from simrate.core.pyramid.words import WordRules
from simrate.formats.output.atomic import check_writable_target
from simrate.formats.pyramids.pyramid import read_pyramid
from simrate.services.exports.pyramid_export import (
    BINARY_COLUMNS,
    RANKING_COLUMNS,
    binary_rows,
    ranking_rows,
    write_tsv_atomically,
)

#: Warnings printed per file; the rest are counted.
MAX_WARNINGS_SHOWN = 10


def _rules(args: argparse.Namespace) -> WordRules:
    """The word rules from the command line's thresholds."""
    if args.min_words < 1:
        raise SimrateError(f"--min-words must be at least 1, not {args.min_words}")
    if args.min_shared < 0:
        raise SimrateError(f"--min-shared must be 0 or more, not {args.min_shared}")
    return WordRules(min_words=args.min_words, min_shared=args.min_shared,
                     shared_count=args.shared_count, shared_words=args.shared_words,
                     tokens=args.tokens, negative_summaries=args.negative_summaries,
                     contributor_text=args.contributor_text)


def _warn(pyramid: Pyramid) -> None:
    """Print a pyramid's warnings on stderr, a few at most."""
    for line, message in pyramid.warnings[:MAX_WARNINGS_SHOWN]:
        where = f"{pyramid.source}:{line}" if line is not None else pyramid.source
        print(f"simrate: warning: {where}: {message}", file=sys.stderr)
    hidden = len(pyramid.warnings) - MAX_WARNINGS_SHOWN
    if hidden > 0:
        print(f"simrate: warning: {pyramid.source}: {hidden} more warnings", file=sys.stderr)


def read_pyramids(files: list[str]) -> list[Pyramid]:
    """Read every file; two pyramids of one topic would give clashing ids, so that is refused."""
    pyramids: list[Pyramid] = []
    by_topic: dict[str, str] = {}
    for name in files:
        pyramid = read_pyramid(name)
        if pyramid.topic in by_topic:
            raise SimrateError(f"topic {pyramid.topic} is also the topic of "
                               f"{by_topic[pyramid.topic]}; pair ids would clash", name)
        by_topic[pyramid.topic] = name
        _warn(pyramid)
        pyramids.append(pyramid)
    return pyramids


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate pyramid`."""
    p = sub.add_parser("pyramid", help="derive paraphrase pairs or questions from pyramids")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--out", required=True)
    p.add_argument("--test", choices=("binary", "ranking"), default="binary")
    p.add_argument("--seed", type=count, default=0)
    p.add_argument("--min-words", type=count, default=3)
    p.add_argument("--min-shared", type=count, default=4,
                   help="non-paraphrase pairs match on at least this many words (more than 3)")
    add_reading_options(p)
    p.add_argument("--json", action="store_true")


def add_reading_options(p: argparse.ArgumentParser) -> None:
    """The options choosing a reading of the pyramid benchmark's rules (README's table)."""
    p.add_argument("--shared-count", choices=("matched", "distinct", "tokens"),
                   default="matched", help="how --min-shared counts shared words")
    p.add_argument("--shared-words", choices=("all", "content"), default="all")
    p.add_argument("--tokens", choices=("words", "whitespace"), default="words")
    p.add_argument("--negative-summaries", choices=("different", "any"), default="different",
                   help="may two contributors of one model summary be a non-paraphrase")
    p.add_argument("--contributor-text", choices=("parts", "label"), default="parts")


def run(args: argparse.Namespace) -> int:
    """Read the pyramids, derive both tests, write the one asked for, report statistics."""
    rules = _rules(args)
    check_writable_target(args.out, args.files, "one of the input files")  # before the work
    pyramids = read_pyramids(args.files)
    pairs, questions = [], []
    for pyramid in pyramids:
        pyramid_pairs, pyramid_questions = derive_tests(pyramid, rules, seed=args.seed)
        pairs += pyramid_pairs
        questions += pyramid_questions
    if args.test == "ranking":
        written = write_tsv_atomically(args.out, RANKING_COLUMNS, ranking_rows(questions))
        what = "questions"
    else:
        written = write_tsv_atomically(args.out, BINARY_COLUMNS, binary_rows(pairs))
        what = "pairs"
    statistics = pyramid_statistics(pyramids, pairs, questions, rules)
    if args.json:
        print(json.dumps(statistics))
    else:
        s = statistics
        print(f"{s['pyramids']} pyramids, {s['scus']} SCUs, {s['contributors']} contributors, "
              f"{s['texts']} texts; parts {s['parts_exact']} exact, {s['parts_recovered']} "
              f"recovered, {s['parts_lost']} lost")
        print(f"{s['positive_pairs']} paraphrase and {s['negative_pairs']} non-paraphrase pairs, "
              f"{s['questions']} ranking questions")
        print(f"wrote {written} {what} to {args.out}")
    return 0
