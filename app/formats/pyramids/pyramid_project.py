"""Pyramids as projects a team can rate: ranking questions as pairs, and counts to preview.

A ranking question (a text, the right answer from its SCU and three distractors) becomes
four items, the question on the left and each candidate on the right, so annotators rate
every candidate on the project's scale; the four stay together, in an order drawn by the
seed, so an annotator sees a question's candidates one after the other. A rated question
then ranks its candidates by their gold scores. Counting reads and pairs each file once,
so a dialog can tell what any choice of test and non-paraphrases per paraphrase would
import before anything is written.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame
from simrate.core.data.values import quoted, whole
from simrate.core.pyramid.model import Pyramid
from simrate.core.pyramid.pairs import binary_pairs, derive_tests, ranking_questions
from simrate.core.pyramid.words import WordRules
from simrate.formats.pyramids.pyramid import read_pyramid

TESTS = ("binary", "ranking")
ROLES = ("answer", "distractor_1", "distractor_2", "distractor_3")


def ranking_item_frame(pyramid: Pyramid, seed: int = 0,
                       rules: WordRules | None = None) -> pd.DataFrame:
    """Four items per ranking question: ids `<topic>:q<question_id>-<candidate text id>`."""
    rows: dict[str, list] = {c: [] for c in ("item_id", "left", "right", "dataset", "genre",
                                             "reference", "meta", "line")}
    questions = ranking_questions(pyramid, rules, seed=seed)
    rng = random.Random(f"{seed}:{pyramid.topic}:ranking-items")
    rng.shuffle(questions)
    for q in questions:
        candidates = list(zip(ROLES, (q.answer, *q.distractors), strict=True))
        rng.shuffle(candidates)  # the answer is not always first
        for role, candidate in candidates:
            pair_id = f"{q.question_id}-{candidate.text_id}"
            rows["item_id"].append(f"{q.topic}:q{pair_id}")
            rows["left"].append(q.question.text)
            rows["right"].append(candidate.text)
            rows["dataset"].append(q.topic)
            rows["genre"].append("")
            rows["reference"].append(float("nan"))
            rows["meta"].append({
                "source": "pyramid", "test": "ranking", "topic": q.topic, "pair_id": pair_id,
                "question_id": q.question_id, "role": role, "label": int(role == "answer"),
                "left_scu": q.question.scu, "right_scu": candidate.scu,
                "left_text": q.question.text_id, "right_text": candidate.text_id,
                "left_summary": q.question.summary_id, "right_summary": candidate.summary_id,
            })
            rows["line"].append(q.question.line)
    return item_frame(rows)


@dataclass(frozen=True)
class PyramidCounts:
    """What one pyramid file offers: its topic, paraphrases, non-paraphrases and questions."""

    source: str
    topic: str
    paraphrases: int
    non_paraphrases: int
    questions: int
    warnings: int = 0

    def items(self, test: str, negatives: str | int) -> int:
        """How many items importing this file with `test` and `negatives` would give."""
        if test == "ranking":
            return len(ROLES) * self.questions
        if negatives == "all":
            return self.paraphrases + self.non_paraphrases
        return self.paraphrases + min(int(negatives) * self.paraphrases, self.non_paraphrases)

    def drawn(self, negatives: str | int) -> int:
        """How many non-paraphrases the binary test would draw."""
        return self.items("binary", negatives) - self.paraphrases


def count_pyramid(path: str | Path, rules: WordRules | None = None) -> PyramidCounts:
    """Read one pyramid file and count what each test could make of it."""
    pyramid = read_pyramid(path)
    pairs, questions = derive_tests(pyramid, rules)
    positive = sum(p.label for p in pairs)
    return PyramidCounts(str(path), pyramid.topic, positive, len(pairs) - positive,
                         len(questions), len(pyramid.warnings))


def count_pyramids(paths: Iterable[str | Path], rules: WordRules | None = None,
                   check: Callable[[], None] | None = None) -> list[PyramidCounts]:
    """count_pyramid for each file; `check()` runs between files (a job's cancel point)."""
    counts = []
    for path in paths:
        if check is not None:
            check()
        counts.append(count_pyramid(path, rules))
    return counts


def clashing_topics(counts: Iterable[PyramidCounts]) -> list[str]:
    """Topics given by more than one file (their item ids would be the same)."""
    seen: dict[str, int] = {}
    for c in counts:
        seen[c.topic] = seen.get(c.topic, 0) + 1
    return sorted(topic for topic, n in seen.items() if n > 1)


def describe(counts: list[PyramidCounts], test: str, negatives: str | int) -> str:
    """One or two lines saying what the import would add, for a preview."""
    total = sum(c.items(test, negatives) for c in counts)
    files = f"{len(counts)} pyramid file{'s' * (len(counts) != 1)}"
    if test == "ranking":
        questions = sum(c.questions for c in counts)
        return (f"{files}: {questions:,} ranking questions, each rated as 4 pairs "
                f"(question with its answer and 3 distractors) = {total:,} items to rate.")
    paraphrases = sum(c.paraphrases for c in counts)
    available = sum(c.non_paraphrases for c in counts)
    drawn = sum(c.drawn(negatives) for c in counts)
    how = "all of them" if negatives == "all" else f"{negatives} per paraphrase, drawn by the seed"
    return (f"{files}: {paraphrases:,} paraphrase pairs + {drawn:,} of {available:,} "
            f"non-paraphrases ({how}) = {total:,} items to rate.")


#: Non-paraphrases per paraphrase in a project import: a balanced set a team can rate.
DEFAULT_NEGATIVES = 1


def pyramid_item_frame(pyramid: Pyramid, negatives: str | int = DEFAULT_NEGATIVES, seed: int = 0,
                       rules: WordRules | None = None) -> pd.DataFrame:
    """Project items from the binary pairs of a pyramid; ids `<topic>:<pair_id>`."""
    rows: dict[str, list] = {c: [] for c in ("item_id", "left", "right", "dataset", "genre",
                                             "reference", "meta", "line")}
    for pair in binary_pairs(pyramid, rules, seed=seed, negatives=negatives):
        rows["item_id"].append(f"{pair.topic}:{pair.pair_id}")
        rows["left"].append(pair.left.text)
        rows["right"].append(pair.right.text)
        rows["dataset"].append(pair.topic)
        rows["genre"].append("")
        rows["reference"].append(float("nan"))
        rows["meta"].append({
            "source": "pyramid", "test": "binary", "topic": pair.topic,
            "pair_id": pair.pair_id, "label": pair.label,
            "left_scu": pair.left.scu, "right_scu": pair.right.scu,
            "left_text": pair.left.text_id, "right_text": pair.right.text_id,
            "left_summary": pair.left.summary_id, "right_summary": pair.right.summary_id,
        })
        rows["line"].append(pair.left.line)
    return item_frame(rows)


def parse_negatives(value: str | int | None) -> str | int:
    """`--negatives`: "all" or a whole number of non-paraphrases per paraphrase (None: default)."""
    if value is None:
        return DEFAULT_NEGATIVES
    text = str(value).strip().lower()
    if text == "all":
        return "all"
    if text.isascii() and text.isdigit():  # not ３ or ٣, which int() reads too
        return whole(text, "--negatives")
    raise SimrateError(f"--negatives must be 'all' or a whole number, not {quoted(str(value))}")


def read_pyramid_items(path: str | Path, negatives: str | int | None = DEFAULT_NEGATIVES,
                       seed: int = 0, rules: WordRules | None = None,
                       test: str = "binary") -> pd.DataFrame:
    """Read a pyramid file and return the items of one test as an item frame (app/core/base/frames.py).

    `test="binary"`: the paraphrase pairs and `negatives` non-paraphrases per paraphrase
    (drawn by `seed`; "all" keeps every one). `test="ranking"`: every question as four
    question-candidate pairs (ranking_item_frame above). dataset = the pyramid's topic;
    meta holds the automatic label (1 paraphrase or answer, 0 not), the SCU, text and
    model-summary ids of both sides; line = the left text's line in the file.
    frame.attrs["warnings"] lists what the reader tolerated (lost parts, skipped SCUs).
    """
    pyramid = read_pyramid(path)
    if test == "ranking":
        frame = ranking_item_frame(pyramid, seed, rules)
    elif test == "binary":
        frame = pyramid_item_frame(pyramid, parse_negatives(negatives), seed, rules)
    else:
        raise SimrateError(f"--test must be binary or ranking, not {test!r}")
    frame.attrs["warnings"] = [f"{path}:{line}: {message}" if line is not None else
                               f"{path}: {message}" for line, message in pyramid.warnings]
    return frame
