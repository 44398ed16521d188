"""How the pyramid benchmark's rules read a text: words, content words, pronouns.

Our own reading of the rules (see the README's pyramid section):
- a word is a run of letters and digits, which may hold an inner apostrophe, hyphen, period
  or comma followed by more letters or digits (`co-founder`, `Concorde's`, `U.S`, `1,300`);
  punctuation alone is not a word;
- words are compared case-insensitively, with a possessive `'s` dropped (`Oprah's` = `oprah`);
- a pronoun is a personal, possessive or reflexive pronoun (the Penn tags PRP and PRP$),
  also inside a contraction (`it's`, `they're`); an all-capitals word of two or more letters
  is an abbreviation, not a pronoun (`US`, `IT`);
- a content word is any word that is not a function word: articles and determiners,
  prepositions, conjunctions, auxiliary and modal verbs, pronouns, negation and a few
  quantifiers and adverbs listed below.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_WORD = re.compile(r"[^\W_]+(?:['’\-.,][^\W_]+)*")

PRONOUNS = frozenset("""
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself
it its itself we us our ours ourselves they them their theirs themselves
""".split())

FUNCTION_WORDS = PRONOUNS | frozenset("""
a an the this that these those such
and or but nor so yet if then than because while although though whether as unless until
of in on at by for with from to into onto upon about above below over under between among
through during before after against without within across along around behind beyond near
off out up down via per since toward towards despite amid
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
not no
who whom whose which what where when why how
all any both each every either neither few many much more most other another some same own
only also just very too there here
however therefore thus meanwhile moreover furthermore nevertheless instead
""".split())

_CLITICS = ("s", "t", "re", "ve", "ll", "d", "m")


#: What `WordRules.min_shared` counts (see the README's table of readings):
#: "matched" - the words of either text that have a match in the other, counted in both texts
#:   (two texts sharing `Countries worldwide sent` match on 6 words);
#: "distinct" - the distinct words the two texts have in common (3 in that example);
#: "tokens" - the words in common counting repeats (min of the two counts per word).
SHARED_COUNTS = ("matched", "distinct", "tokens")
#: What a word is for that count: "words" (our word rule, case-folded, possessive dropped) or
#: "whitespace" (whatever lies between spaces, case and punctuation kept).
TOKENS = ("words", "whitespace")
#: Which texts of different SCUs may be a non-paraphrase: "different" keeps out two
#: contributors of one model summary (as no paraphrase pair can hold them), "any" does not.
NEGATIVE_SUMMARIES = ("different", "any")
#: A contributor's text: "parts" (its parts as the summary reads) or "label" (DUCView's label).
CONTRIBUTOR_TEXTS = ("parts", "label")


@dataclass(frozen=True, slots=True)
class WordRules:
    """The thresholds of the benchmark's rules; the defaults are the calibrated reading."""

    min_words: int = 3  # every text has at least this many words
    min_shared: int = 4  # a non-paraphrase pair matches on at least this many words ("more than 3")
    shared_words: str = "all"  # what `min_shared` counts: "all" words or "content" words
    ranking_pronouns: bool = True  # ranking questions may hold pronouns (the paper's example does)
    max_texts: int = 5_000  # per pyramid; pair generation is quadratic in it
    shared_count: str = "matched"  # how shared words are counted: one of SHARED_COUNTS
    tokens: str = "words"  # what a word is for the shared count: one of TOKENS
    negative_summaries: str = "different"  # one of NEGATIVE_SUMMARIES
    contributor_text: str = "parts"  # one of CONTRIBUTOR_TEXTS

    def __post_init__(self) -> None:
        """Refuse a setting the rules cannot mean."""
        if self.shared_words not in ("all", "content"):
            raise ValueError(f"shared_words must be 'all' or 'content', not {self.shared_words!r}")
        for name, allowed in (("shared_count", SHARED_COUNTS), ("tokens", TOKENS),
                              ("negative_summaries", NEGATIVE_SUMMARIES),
                              ("contributor_text", CONTRIBUTOR_TEXTS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, "
                                 f"not {getattr(self, name)!r}")
        if self.min_words < 1 or self.min_shared < 0 or self.max_texts < 2:
            raise ValueError("min_words >= 1, min_shared >= 0 and max_texts >= 2 are needed")


def words(text: str) -> list[str]:
    """The words of `text`, as written."""
    return _WORD.findall(text)


def word_key(word: str) -> str:
    """How a word is compared: case-folded, curly apostrophe made straight, possessive 's dropped."""
    key = word.casefold().replace("’", "'")
    if key.endswith("'s") and len(key) > 2:
        key = key[:-2]
    return key


def _base_of_contraction(key: str) -> str:
    """`it's` -> `it`, `didn't` -> `did`, other words unchanged."""
    if key.endswith("n't"):
        return key[:-3]
    head, _, tail = key.rpartition("'")
    if head and tail in _CLITICS:
        return head
    return key


def is_pronoun(word: str) -> bool:
    """True for a personal, possessive or reflexive pronoun, also inside a contraction."""
    if len(word) > 1 and word.isupper():
        return False  # US, IT: abbreviations
    key = word.casefold().replace("’", "'")
    return key in PRONOUNS or _base_of_contraction(key) in PRONOUNS


def is_content_word(word: str) -> bool:
    """True unless the word is a function word (or a contraction of one)."""
    key = word_key(word)
    if len(word) > 1 and word.isupper() and key in PRONOUNS:
        return True  # US, IT: abbreviations
    return key not in FUNCTION_WORDS and _base_of_contraction(key) not in FUNCTION_WORDS


@dataclass(frozen=True, slots=True)
class TextWords:
    """What the rules need to know about one text."""

    n_words: int
    has_pronoun: bool
    all_words: frozenset[str]  # word keys
    content_words: frozenset[str]  # word keys of content words
    all_counts: dict[str, int] = field(default_factory=dict)  # shared-count key -> repeats
    content_counts: dict[str, int] = field(default_factory=dict)  # the same, content words


def _whitespace_is_content(token: str) -> bool:
    """A raw token is a content word unless, stripped of punctuation, it is a function word."""
    found = words(token)
    return not found or all(is_content_word(w) for w in found)


def analyse(text: str, tokens: str = "words") -> TextWords:
    """The words of `text` as the rules see them; `tokens` chooses the shared-count keys."""
    found = words(text)
    if tokens == "whitespace":
        raw = text.split()
        all_counts = Counter(raw)
        content_counts = Counter(t for t in raw if _whitespace_is_content(t))
    else:
        all_counts = Counter(word_key(w) for w in found)
        content_counts = Counter(word_key(w) for w in found if is_content_word(w))
    return TextWords(
        n_words=len(found),
        has_pronoun=any(is_pronoun(w) for w in found),
        all_words=frozenset(word_key(w) for w in found),
        content_words=frozenset(word_key(w) for w in found if is_content_word(w)),
        all_counts=dict(all_counts),
        content_counts=dict(content_counts),
    )
