"""Binary pairs and ranking questions: each rule, determinism, and a brute-force cross-check."""

from __future__ import annotations

import itertools
import random

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.pyramid.model import Contributor, Part, Pyramid, Scu, build_pyramid
from simrate.core.pyramid.pairs import (
    STATISTICS_KEYS,
    binary_pairs,
    derive_tests,
    pyramid_statistics,
    pyramid_texts,
    ranking_questions,
)
from simrate.core.pyramid.words import WordRules, analyse


def make_pyramid(scus: dict[str, tuple[str, list[str]]], topic: str = "D9990") -> Pyramid:
    """A pyramid whose contributors are whole lines, with exact offsets; as in DUC, the k-th
    contributor of every SCU comes from the k-th model summary."""
    n_summaries = max((len(texts) for _, texts in scus.values()), default=1)
    lines: list[str] = []
    where: dict[tuple[str, int], int] = {}  # (uid, k) -> line index
    for k in range(max(n_summaries, 1)):
        lines += ["-----", f"{topic}.M.100.A.{'ABCDEFGHIJ'[k]}", "-----"]
        for uid, (_, texts) in scus.items():
            if k < len(texts):
                where[(uid, k)] = len(lines)
                lines.append(texts[k])
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    built = []
    for uid, (label, texts) in scus.items():
        contributors = []
        for k, text in enumerate(texts):
            start = starts[where[(uid, k)]]
            contributors.append(Contributor(text, [Part(text, start, start + len(text))]))
        built.append(Scu(uid, label, contributors))
    return build_pyramid(lines, built)


def pair_set(pairs):
    """Pairs as {(frozenset of the two texts), label}."""
    return {(frozenset((p.left.text, p.right.text)), p.label) for p in pairs}


def test_texts_are_labels_and_contributors_without_repeats_within_an_scu():
    pyramid = make_pyramid({"7": ("Rescue teams reached the village", [
        "Rescue teams reached the village", "rescue  teams reached the Village",
        "Soldiers arrived at the mountain village"])})
    texts = pyramid_texts(pyramid)
    assert [(t.text_id, t.kind) for t in texts] == [("7.0", "label"), ("7.3", "contributor")]
    assert texts[1].summary_id == "D9990.M.100.A.C"


def test_paraphrases_need_three_words_no_pronoun_and_a_different_content_word():
    pyramid = make_pyramid({"1": ("Rescue teams reached the village", [
        "Soldiers arrived at the mountain village",   # varied: a paraphrase of the label
        "rescue teams reached a village",            # same content words as the label
        "They reached the village",                  # pronoun
        "Rescuers arrived",                          # two words
    ])})
    positives = pair_set(binary_pairs(pyramid))
    assert positives == {
        (frozenset({"Rescue teams reached the village", "Soldiers arrived at the mountain village"}), 1),
        (frozenset({"rescue teams reached a village", "Soldiers arrived at the mountain village"}), 1),
    }
    relaxed = pair_set(binary_pairs(pyramid, WordRules(min_words=2)))
    assert (frozenset({"Rescuers arrived", "Rescue teams reached the village"}), 1) in relaxed


def test_non_paraphrases_match_on_more_than_three_words_counted_in_both_texts():
    pyramid = make_pyramid({
        "1": ("The new bridge over the river opened", ["A crossing for walkers opened in May"]),
        "2": ("The old ferry was closed", ["Repairs shut the crossing"]),
        "3": ("A brewery paid for new lights", ["Lamps were sponsored locally"]),
    })
    negatives = {texts for texts, label in pair_set(binary_pairs(pyramid)) if label == 0}
    # labels 1 and 3 share {new}: 2 matched words; labels 1 and 2 share {the}, twice in one
    # and once in the other: 3; "A crossing for walkers opened in May" and label 3 share
    # {a, for}: 4 matched words, more than 3, so a non-paraphrase.
    assert negatives == {frozenset({"A crossing for walkers opened in May",
                                    "A brewery paid for new lights"})}
    distinct = binary_pairs(pyramid, WordRules(shared_count="distinct", min_shared=2))
    assert {texts for texts, label in pair_set(distinct) if label == 0} == negatives
    strict = binary_pairs(pyramid, WordRules(min_shared=5))
    assert not [p for p in strict if p.label == 0]
    content_only = binary_pairs(pyramid, WordRules(shared_words="content"))
    assert not [p for p in content_only if p.label == 0]  # a, for: function words


def test_the_papers_example_non_paraphrase_pair_is_one_by_default():
    # Figure 2 of the paper: two texts sharing exactly three words, a non-paraphrase pair
    pyramid = make_pyramid({
        "1": ("Countries worldwide sent Equipment", ["Rescue gear arrived from abroad"]),
        "2": ("Countries worldwide sent Relief Workers", ["Foreign aid workers flew in"]),
    })
    example = frozenset({"Countries worldwide sent Equipment",
                         "Countries worldwide sent Relief Workers"})
    assert (example, 0) in pair_set(binary_pairs(pyramid))
    # the literal count of distinct shared words (3) would leave it out
    literal = WordRules(shared_count="distinct", min_shared=4)
    assert (example, 0) not in pair_set(binary_pairs(pyramid, literal))


def test_two_contributors_of_one_summary_are_no_non_paraphrase_unless_asked():
    lines = ["-----", "D9990.M.100.A.A", "-----", "Floods closed the main road into the town",
             "Floods closed the main bridge into the town"]
    start_1 = len("\n".join(lines[:3])) + 1
    start_2 = start_1 + len(lines[3]) + 1
    scus = [Scu("1", "Road closed by floods", [Contributor(lines[3], [
                Part(lines[3], start_1, start_1 + len(lines[3]))])]),
            Scu("2", "Bridge closed by floods", [Contributor(lines[4], [
                Part(lines[4], start_2, start_2 + len(lines[4]))])])]
    pyramid = build_pyramid(lines, scus)
    pair = frozenset(lines[3:5])
    assert (pair, 0) not in pair_set(binary_pairs(pyramid))
    assert (pair, 0) in pair_set(binary_pairs(pyramid, WordRules(negative_summaries="any")))


def test_contributor_text_may_be_the_contributor_label():
    pyramid = make_pyramid({"1": ("Rescue teams reached the village",
                                  ["Soldiers arrived at the mountain village"])})
    pyramid.scus[0].contributors[0].label = "Soldiers arrived ... the village"
    texts = pyramid_texts(pyramid, WordRules(contributor_text="label"))
    assert [t.text for t in texts] == ["Rescue teams reached the village",
                                       "Soldiers arrived ... the village"]


def test_identical_texts_in_two_scus_never_make_a_non_paraphrase():
    same = "The federal appeals court in New Orleans ruled"
    pyramid = make_pyramid({"1": ("Court ruling in New Orleans", [same]),
                            "2": ("The appeals court sat in New Orleans", [same])})
    assert not [p for p in binary_pairs(pyramid) if p.label == 0
                and p.left.text == p.right.text]


def test_pair_ids_name_left_and_right_and_neither_depends_on_the_seed():
    pyramid = random_pyramid(3)
    by_seed = [{p.pair_id: (p.left.text, p.right.text) for p in binary_pairs(pyramid, seed=s)}
               for s in (1, 99)]
    assert by_seed[0] == by_seed[1]
    for p in binary_pairs(pyramid):
        assert p.pair_id == f"{p.left.text_id}-{p.right.text_id}"
    labels_left = [p.left.text_id.endswith(".0") for p in binary_pairs(pyramid) if p.label == 1
                   and (p.left.text_id.endswith(".0") or p.right.text_id.endswith(".0"))]
    assert any(labels_left) and not all(labels_left)  # the SCU label is not always on the left


def random_pyramid(seed: int, n_scus: int = 12) -> Pyramid:
    """A pyramid of random texts over a small vocabulary, so that many texts share words."""
    rng = random.Random(seed)
    vocabulary = ("the of a in bridge river town mayor opened flood volunteers built council "
                  "money school children detour lights brewery cars it their long May").split()
    scus = {}
    for uid in range(n_scus):
        texts = [" ".join(rng.choices(vocabulary, k=rng.randint(2, 12)))
                 for _ in range(rng.randint(1, 4))]
        scus[str(uid)] = (" ".join(rng.choices(vocabulary, k=rng.randint(2, 8))), texts)
    return make_pyramid(scus)


def reference_shared(a: str, b: str, rules: WordRules) -> int:
    """The shared-word count of two texts, word by word in plain Python."""
    ca = analyse(a, rules.tokens).all_counts if rules.shared_words == "all" \
        else analyse(a, rules.tokens).content_counts
    cb = analyse(b, rules.tokens).all_counts if rules.shared_words == "all" \
        else analyse(b, rules.tokens).content_counts
    common = set(ca) & set(cb)
    if rules.shared_count == "distinct":
        return len(common)
    if rules.shared_count == "tokens":
        return sum(min(ca[w], cb[w]) for w in common)
    return sum(ca[w] + cb[w] for w in common)


def reference_pairs(pyramid: Pyramid, rules: WordRules) -> set:
    """The binary rules applied pair by pair in plain Python (independent of the matrices)."""
    texts = pyramid_texts(pyramid, rules)
    result = set()
    for a, b in itertools.combinations(texts, 2):
        wa, wb = analyse(a.text), analyse(b.text)
        if min(wa.n_words, wb.n_words) < rules.min_words or wa.has_pronoun or wb.has_pronoun:
            continue
        if wa.content_words == wb.content_words:
            continue
        if a.scu == b.scu:
            result.add((a.text_id, b.text_id, 1))
            continue
        same_summary = (a.kind == b.kind == "contributor" and a.summary_id
                        and a.summary_id == b.summary_id)
        if same_summary and rules.negative_summaries == "different":
            continue
        if reference_shared(a.text, b.text, rules) >= rules.min_shared:
            result.add((a.text_id, b.text_id, 0))
    return result


READINGS = (WordRules(), WordRules(min_words=2, min_shared=3),
            WordRules(shared_count="distinct"), WordRules(shared_count="tokens", min_shared=3),
            WordRules(shared_words="content", negative_summaries="any"),
            WordRules(tokens="whitespace", min_shared=5))


@pytest.mark.parametrize("seed", range(6))
def test_binary_pairs_agree_with_a_pair_by_pair_reference(seed):
    pyramid = random_pyramid(seed)
    for rules in READINGS:
        got = set()
        texts = pyramid_texts(pyramid, rules)
        for p in binary_pairs(pyramid, rules, seed=seed):
            first, second = sorted((p.left, p.right), key=texts.index)
            got.add((first.text_id, second.text_id, p.label))
        assert got == reference_pairs(pyramid, rules)
        assert {label for _, _, label in got} == {0, 1}  # both kinds were really compared


def test_same_seed_same_output_other_seed_same_pairs_other_order():
    pyramid = random_pyramid(3)
    first, again = binary_pairs(pyramid, seed=5), binary_pairs(pyramid, seed=5)
    other = binary_pairs(pyramid, seed=6)
    assert first == again
    assert [p.pair_id for p in first] != [p.pair_id for p in other]
    assert {p.pair_id for p in first} == {p.pair_id for p in other}
    assert ranking_questions(pyramid, seed=5) == ranking_questions(pyramid, seed=5)


def test_negatives_per_paraphrase_draws_a_subset():
    pyramid = random_pyramid(4, n_scus=20)
    rules = WordRules(min_shared=3)
    everything = binary_pairs(pyramid, rules)
    n_positive = sum(p.label for p in everything)
    all_negative = {p.pair_id for p in everything if p.label == 0}
    assert n_positive and len(all_negative) > n_positive
    one_each = binary_pairs(pyramid, rules, negatives=1, seed=2)
    drawn = {p.pair_id for p in one_each if p.label == 0}
    assert len(drawn) == n_positive and drawn <= all_negative
    assert sum(p.label for p in one_each) == n_positive
    assert drawn != {p.pair_id for p in binary_pairs(pyramid, rules, negatives=1, seed=3)
                     if p.label == 0}
    many = binary_pairs(pyramid, rules, negatives=10_000)
    assert {p.pair_id for p in many if p.label == 0} == all_negative


def test_ranking_distractors_are_the_most_similar_texts_of_other_scus():
    pyramid = make_pyramid({
        "1": ("Floods destroyed the old bridge", ["Flood water swept away the old river bridge"]),
        "2": ("The old bridge was built in 1850", ["Masons built the first crossing"]),
        "3": ("Floods hit the town hall", ["Water reached the town hall"]),
        "4": ("The river rose after rain", ["Rain made the river rise"]),
        "5": ("Volunteers built a new bridge", ["Residents constructed the replacement"]),
    })
    question = next(q for q in ranking_questions(pyramid) if q.question_id == "1.0")
    assert question.answer.text == "Flood water swept away the old river bridge"
    # Jaccard of content words with {floods, destroyed, old, bridge}:
    # "The old bridge was built in 1850" {old, bridge, built, 1850} = 2/6,
    # "Volunteers built a new bridge" {volunteers, built, new, bridge} = 1/7,
    # "Floods hit the town hall" {floods, hit, town, hall} = 1/7; the tie goes to the one
    # sharing more words in all: {floods, the} against {bridge}
    assert [d.text for d in question.distractors] == [
        "The old bridge was built in 1850", "Floods hit the town hall",
        "Volunteers built a new bridge"]
    assert all(d.scu != "1" for d in question.distractors)


def test_ranking_keeps_pronouns_by_default_and_skips_questions_without_three_distractors():
    pyramid = make_pyramid({
        "1": ("The mayor opened the bridge", ["She opened the new bridge on Monday"]),
        "2": ("Children walked a long detour", ["Pupils faced a long walk"]),
    })
    assert ranking_questions(pyramid) == []  # only one other SCU: two distractors at most
    bigger = make_pyramid({
        "1": ("The mayor opened the bridge", ["She opened the new bridge on Monday"]),
        "2": ("Children walked a long detour", ["Pupils faced a long walk"]),
        "3": ("Cars may not cross the bridge", ["Vehicles are banned from the crossing"]),
    })
    ids = {q.question_id for q in ranking_questions(bigger)}
    assert "1.1" in ids
    strict = {q.question_id for q in ranking_questions(bigger, WordRules(ranking_pronouns=False))}
    assert "1.1" not in strict and "1.0" not in strict


def test_statistics_add_up():
    pyramid = random_pyramid(1)
    pairs, questions = binary_pairs(pyramid), ranking_questions(pyramid)
    stats = pyramid_statistics([pyramid], pairs, questions)
    assert tuple(stats) == STATISTICS_KEYS
    assert stats["parts"] == stats["parts_exact"] + stats["parts_recovered"] + stats["parts_lost"]
    assert stats["positive_pairs"] + stats["negative_pairs"] == len(pairs)
    assert stats["questions"] == len(questions)
    assert stats["texts"] == len(pyramid_texts(pyramid)) <= stats["scus"] + stats["contributors"]


def test_a_pyramid_with_too_many_texts_is_refused_clearly():
    pyramid = random_pyramid(2)
    with pytest.raises(SimrateError, match="more than the 5"):
        binary_pairs(pyramid, WordRules(max_texts=5))


def test_derive_tests_gives_both_tests_as_the_separate_functions_do():
    pyramid = random_pyramid(5)
    pairs, questions = derive_tests(pyramid, seed=8, negatives=1)
    assert pairs == binary_pairs(pyramid, seed=8, negatives=1)
    assert questions == ranking_questions(pyramid, seed=8)
