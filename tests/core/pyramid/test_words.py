"""How the benchmark's rules read a text: words, pronouns, content words."""

from __future__ import annotations

import pytest

from simrate.core.pyramid.words import (
    WordRules,
    analyse,
    is_content_word,
    is_pronoun,
    word_key,
    words,
)


def test_words_keep_inner_hyphens_apostrophes_periods_and_digit_groups():
    assert words("Morris Dees, co-founder (SPLC), flew 1,300 mph to the U.S. in 1971.") == [
        "Morris", "Dees", "co-founder", "SPLC", "flew", "1,300", "mph", "to", "the", "U.S",
        "in", "1971"]
    assert words("the Concorde's tire -- 4 ... !") == ["the", "Concorde's", "tire", "4"]


def test_word_keys_ignore_case_and_possessive_s():
    assert word_key("Oprah's") == word_key("oprah") == "oprah"
    assert word_key("Concorde’s") == "concorde"
    assert word_key("US") == "us"


@pytest.mark.parametrize("word", ["it", "It", "its", "their", "themselves", "I", "us", "her",
                                  "it's", "they're", "She’d"])
def test_personal_possessive_and_reflexive_pronouns_count(word):
    assert is_pronoun(word)


@pytest.mark.parametrize("word", ["US", "IT", "this", "that", "who", "one", "Oprah's", "item",
                                  "theirs-ish"])
def test_abbreviations_demonstratives_and_other_words_are_not_pronouns(word):
    assert not is_pronoun(word)


def test_content_words_leave_out_function_words_and_contractions_of_them():
    assert [w for w in words("The plane didn't land in Paris because of fog")
            if is_content_word(w)] == ["plane", "land", "Paris", "fog"]
    assert is_content_word("US")  # the country, not the pronoun
    assert not is_content_word("However")


def test_analyse_counts_words_and_flags_pronouns():
    info = analyse("It crashed into a small hotel")
    assert info.n_words == 6
    assert info.has_pronoun
    assert info.content_words == {"crashed", "small", "hotel"}
    assert info.all_words == {"it", "crashed", "into", "a", "small", "hotel"}
    assert not analyse("US officials met in Paris").has_pronoun


def test_rules_refuse_settings_they_cannot_mean():
    with pytest.raises(ValueError, match="shared_words"):
        WordRules(shared_words="nouns")
    with pytest.raises(ValueError):
        WordRules(min_words=0)
