"""The pyramid paraphrase benchmark: binary pairs and ranking questions from located pyramids.

Texts are SCU labels and contributor texts. Pairs and questions never cross pyramids (a
pyramid is one topic), so each pyramid is handled alone, with a few small matrices of shared
word counts (texts x texts, built with one matrix product) instead of Python loops over pairs.
Everything is deterministic for a given seed: the random generator of a pyramid is seeded with
the seed and the pyramid's topic, so a pyramid's output does not depend on the other files.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.core.pyramid.model import Pyramid, collapse_whitespace
from simrate.core.pyramid.words import TextWords, WordRules, analyse

STATISTICS_KEYS = ("pyramids", "scus", "contributors", "texts", "positive_pairs",
                   "negative_pairs", "questions", "parts", "parts_exact", "parts_recovered",
                   "parts_lost")


@dataclass(frozen=True, slots=True)
class PyramidText:
    """One text of the benchmark: an SCU label (`<uid>.0`) or a contributor (`<uid>.<k>`)."""

    text_id: str
    scu: str
    text: str
    kind: str  # "label" or "contributor"
    summary_id: str  # the model summary of a contributor; "" for a label
    line: int  # where it is written in the pyramid file


@dataclass(frozen=True, slots=True)
class BinaryPair:
    """A pair of texts: label 1 when both come from one SCU (paraphrase), else 0."""

    pair_id: str
    topic: str
    left: PyramidText
    right: PyramidText
    label: int


@dataclass(frozen=True, slots=True)
class RankingQuestion:
    """A question text, the right answer from its SCU and three distractors from other SCUs."""

    question_id: str
    topic: str
    question: PyramidText
    answer: PyramidText
    distractors: tuple[PyramidText, PyramidText, PyramidText]


def text_key(text: str) -> str:
    """Texts with equal keys count as the same text (case and spacing ignored)."""
    return collapse_whitespace(text).casefold()


def pyramid_texts(pyramid: Pyramid, rules: WordRules | None = None) -> list[PyramidText]:
    """The distinct texts of each SCU: its label, then its contributors in file order."""
    from_label = rules is not None and rules.contributor_text == "label"
    texts = []
    uid_count: dict[str, int] = {}
    for scu in pyramid.scus:
        uid_count[scu.uid] = uid_count.get(scu.uid, 0) + 1
        # A uid used twice (a broken file) still gives unique, stable text ids.
        uid = scu.uid if uid_count[scu.uid] == 1 else f"{scu.uid}~{uid_count[scu.uid]}"
        candidates = [(0, collapse_whitespace(scu.label), "label", "", scu.line)]
        candidates += [(k, collapse_whitespace(c.label) if from_label else c.text, "contributor",
                        c.summary_id, c.line) for k, c in enumerate(scu.contributors, start=1)]
        seen = set()
        for k, text, kind, summary_id, line in candidates:
            key = text_key(text)
            if not key or key in seen:
                continue
            seen.add(key)
            texts.append(PyramidText(f"{uid}.{k}", uid, text, kind, summary_id, line))
    return texts


class _TopicMatrices:
    """Word overlaps between all texts of one pyramid, and who may be paired with whom."""

    def __init__(self, texts: list[PyramidText], rules: WordRules):
        self.texts = texts
        info: list[TextWords] = [analyse(t.text, rules.tokens) for t in texts]
        n_words = np.array([i.n_words for i in info], dtype=np.int64)
        pronoun = np.array([i.has_pronoun for i in info], dtype=bool)
        long_enough = n_words >= rules.min_words
        self.eligible_binary = long_enough & ~pronoun
        self.eligible_ranking = long_enough if rules.ranking_pronouns else self.eligible_binary
        scu_index: dict[str, int] = {}
        self.group = np.array([scu_index.setdefault(t.scu, len(scu_index)) for t in texts])
        key_index: dict[str, int] = {}
        self.key = np.array([key_index.setdefault(text_key(t.text), len(key_index))
                             for t in texts])
        self.common_content, content_size = _overlap([i.content_words for i in info])
        self.common_all, _ = _overlap([i.all_words for i in info])
        counts = [i.content_counts if rules.shared_words == "content" else i.all_counts
                  for i in info]
        self.shared = _overlap(counts, rules.shared_count)[0]
        same_set = ((self.common_content == content_size[:, None])
                    & (self.common_content == content_size[None, :]))
        self.varied = ~same_set  # at least one content word is in one text but not the other
        union = content_size[:, None] + content_size[None, :] - self.common_content
        self.jaccard = np.divide(self.common_content, union, out=np.zeros(union.shape),
                                 where=union > 0)
        self.may_be_negative = _summaries_apart(texts, rules)


def _summaries_apart(texts: list[PyramidText], rules: WordRules) -> np.ndarray:
    """Which pairs may be non-paraphrases as far as their model summaries go (n x n)."""
    n = len(texts)
    if rules.negative_summaries == "any":
        return np.ones((n, n), dtype=bool)
    summary_index: dict[str, int] = {}
    # labels and contributors of no known summary get a summary of their own (-1 - row)
    summary = np.array([summary_index.setdefault(t.summary_id, len(summary_index))
                        if t.kind == "contributor" and t.summary_id else -1 - row
                        for row, t in enumerate(texts)])
    return summary[:, None] != summary[None, :]


def _postings(word_counts: list) -> tuple[list[int], list[int], list[int]]:
    """(text, word number, repeats) for every distinct word of every text."""
    vocabulary: dict[str, int] = {}
    text_of, word_of, repeats = [], [], []
    for row, words_of_text in enumerate(word_counts):
        for word in words_of_text:
            text_of.append(row)
            word_of.append(vocabulary.setdefault(word, len(vocabulary)))
            repeats.append(words_of_text[word] if isinstance(words_of_text, dict) else 1)
    return text_of, word_of, repeats


def _overlap(word_counts: list, how: str = "distinct") -> tuple[np.ndarray, np.ndarray]:
    """Shared word counts between every two texts (n x n), and each text's own count.

    `word_counts` holds a set of words or a {word: repeats} dict per text; `how` is
    "distinct" (words in common), "tokens" (in common with repeats: the smaller count) or
    "matched" (the words of both texts that have a match in the other: the sum of counts).
    Through an inverted index: every word adds to each pair of the texts holding it. All
    pairs of each word's postings are laid out at once with np.repeat and counted with one
    bincount; no BLAS (whose threads cost more than they save on matrices this small).
    """
    n = len(word_counts)
    text_of, word_of, repeats = _postings(word_counts)
    if not text_of:
        return np.zeros((n, n), dtype=np.int32), np.zeros(n, dtype=np.int32)
    by_word = np.argsort(np.array(word_of), kind="stable")
    postings = np.array(text_of, dtype=np.int64)[by_word]  # texts, grouped by word
    counts = np.array(repeats, dtype=np.int64)[by_word]
    words = np.array(word_of)[by_word]
    group_start = np.flatnonzero(np.r_[True, words[1:] != words[:-1]])
    group_size = np.diff(np.r_[group_start, len(words)])
    partners = np.repeat(group_size, group_size)  # per posting: texts sharing its word
    first = np.repeat(np.repeat(group_start, group_size), partners)
    step = np.arange(partners.sum()) - np.repeat(np.cumsum(partners) - partners, partners)
    mine = np.repeat(np.arange(len(postings)), partners)
    theirs = first + step
    pair_code = postings[mine] * n + postings[theirs]
    weights = None
    if how == "tokens":
        weights = np.minimum(counts[mine], counts[theirs])
    elif how == "matched":
        weights = counts[mine] + counts[theirs]
    summed = np.bincount(pair_code, weights=weights, minlength=n * n)
    common = np.rint(summed).astype(np.int32).reshape(n, n)
    own = np.diagonal(common).copy()
    return common, own // 2 if how == "matched" else own


def _matrices(pyramid: Pyramid, rules: WordRules) -> _TopicMatrices | None:
    """The overlap matrices of a pyramid (None below two texts), refusing one too large."""
    texts = pyramid_texts(pyramid, rules)
    if len(texts) < 2:
        return None
    if len(texts) > rules.max_texts:
        raise SimrateError(f"pyramid {pyramid.topic} has {len(texts)} texts, more than the "
                           f"{rules.max_texts} that pair generation handles", pyramid.source)
    return _TopicMatrices(texts, rules)


def _rng(seed: int, topic: str, purpose: str) -> random.Random:
    """A generator for one pyramid and one purpose (str seeds are hashed stably by random)."""
    return random.Random(f"{seed}:{topic}:{purpose}")


def binary_pairs(pyramid: Pyramid, rules: WordRules | None = None, seed: int = 0,
                 negatives: str | int = "all") -> list[BinaryPair]:
    """Paraphrase (same SCU) and non-paraphrase pairs of one pyramid, shuffled by `seed`.

    `negatives` is "all" or how many non-paraphrase pairs to draw per paraphrase pair.
    A pair's id is `<left text id>-<right text id>`; ids and sides do not depend on the seed,
    only the order of the pairs (and which negatives are drawn) do.
    """
    rules = rules or WordRules()
    m = _matrices(pyramid, rules)
    return [] if m is None else _binary(m, pyramid.topic, rules, seed, negatives)


def _binary(m: _TopicMatrices, topic: str, rules: WordRules, seed: int,
            negatives: str | int) -> list[BinaryPair]:
    """binary_pairs on a pyramid's matrices."""
    rng = _rng(seed, topic, "binary")
    both = m.eligible_binary[:, None] & m.eligible_binary[None, :] & m.varied
    same = m.group[:, None] == m.group[None, :]
    positive = np.argwhere(np.triu(both & same, 1))
    negative = np.argwhere(np.triu(both & ~same & m.may_be_negative
                                   & (m.shared >= rules.min_shared), 1))
    if negatives != "all":
        wanted = min(int(negatives) * len(positive), len(negative))
        negative = negative[sorted(rng.sample(range(len(negative)), wanted))]
    pairs = []
    for label, index_pairs in ((1, positive), (0, negative)):
        for i, j in index_pairs.tolist():
            left, right = m.texts[i], m.texts[j]
            # Neither side always holds the SCU label or the earlier SCU; the choice hangs on
            # the two texts alone, so a pair reads the same whatever the seed (and importing
            # it again with another seed finds the same item).
            if zlib.crc32(f"{topic}:{left.text_id}-{right.text_id}".encode()) & 1:
                left, right = right, left
            pairs.append(BinaryPair(f"{left.text_id}-{right.text_id}", topic, left, right, label))
    rng.shuffle(pairs)
    return pairs


def _distractors(m: _TopicMatrices, ranked: np.ndarray,
                 taken: tuple[int, int]) -> list[PyramidText]:
    """The first three of `ranked` that differ in a content word from each other and `taken`."""
    chosen: list[int] = []
    for j in ranked.tolist():
        if all(m.varied[j, k] for k in (*taken, *chosen)):
            chosen.append(j)
            if len(chosen) == 3:
                break
    return [m.texts[j] for j in chosen]


def ranking_questions(pyramid: Pyramid, rules: WordRules | None = None,
                      seed: int = 0) -> list[RankingQuestion]:
    """One question per text that has another text of its SCU to be the answer.

    The answer is drawn (by `seed`) among the other eligible texts of the SCU that differ in
    at least one content word; the distractors are the three texts of other SCUs most similar
    to the question (Jaccard over content words, then shared words, then file order), none
    equal to a text of the question's SCU, and each differing in a content word from the
    question, the answer and the other distractors. Questions with fewer than three possible
    distractors are left out.
    """
    rules = rules or WordRules()
    m = _matrices(pyramid, rules)
    return [] if m is None else _ranking(m, pyramid.topic, seed)


def _ranking(m: _TopicMatrices, topic: str, seed: int) -> list[RankingQuestion]:
    """ranking_questions on a pyramid's matrices."""
    rng = _rng(seed, topic, "ranking")
    order = np.arange(len(m.texts))
    # per SCU: the texts (of any SCU) equal to one of its own, never its distractors
    own_text: dict[int, np.ndarray] = {}
    questions = []
    for i in np.flatnonzero(m.eligible_ranking).tolist():
        group = int(m.group[i])
        partners = np.flatnonzero((m.group == group) & m.eligible_ranking & m.varied[i])
        if len(partners) == 0:
            continue
        answer = int(partners[rng.randrange(len(partners))])
        if group not in own_text:
            own_text[group] = np.isin(m.key, m.key[m.group == group])
        candidates = np.flatnonzero(m.eligible_ranking & ~own_text[group])
        ranked = candidates[np.lexsort((order[candidates], -m.common_all[i, candidates],
                                        -m.jaccard[i, candidates]))]
        chosen = _distractors(m, ranked, (i, answer))
        if len(chosen) == 3:
            questions.append(RankingQuestion(m.texts[i].text_id, topic, m.texts[i],
                                             m.texts[answer], (chosen[0], chosen[1], chosen[2])))
    return questions


def derive_tests(pyramid: Pyramid, rules: WordRules | None = None, seed: int = 0,
                 negatives: str | int = "all") -> tuple[list[BinaryPair], list[RankingQuestion]]:
    """Both tests of one pyramid (as binary_pairs and ranking_questions), sharing the work."""
    rules = rules or WordRules()
    m = _matrices(pyramid, rules)
    if m is None:
        return [], []
    return _binary(m, pyramid.topic, rules, seed, negatives), _ranking(m, pyramid.topic, seed)


def pyramid_statistics(pyramids: list[Pyramid], pairs: list[BinaryPair],
                       questions: list[RankingQuestion],
                       rules: WordRules | None = None) -> dict[str, int]:
    """The statistics of `simrate pyramid --json`, keys in the documented order."""
    counts = {"exact": 0, "recovered": 0, "lost": 0}
    for pyramid in pyramids:
        for status, count in pyramid.part_counts().items():
            counts[status] += count
    positive = sum(p.label for p in pairs)
    return {
        "pyramids": len(pyramids),
        "scus": sum(len(p.scus) for p in pyramids),
        "contributors": sum(s.weight for p in pyramids for s in p.scus),
        "texts": sum(len(pyramid_texts(p, rules)) for p in pyramids),
        "positive_pairs": positive,
        "negative_pairs": len(pairs) - positive,
        "questions": len(questions),
        "parts": sum(counts.values()),
        "parts_exact": counts["exact"],
        "parts_recovered": counts["recovered"],
        "parts_lost": counts["lost"],
    }
