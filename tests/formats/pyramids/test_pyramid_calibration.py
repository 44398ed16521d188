"""The default reading of the non-paraphrase rule against the paper, on the 20 DUC 2006 pyramids."""

from __future__ import annotations

import re

import pytest

from simrate.core.pyramid.pairs import derive_tests
from simrate.core.pyramid.words import WordRules
from simrate.formats.pyramids.pyramid import read_pyramid
from tests.conftest import REALDATA, ROOT
from tests.perf.pyramid_readings import PAPER, READINGS, measure

PAPER_RATIO = PAPER["non_paraphrases"] / PAPER["paraphrases"]  # 22.55


@pytest.fixture(scope="module")
def duc2006():
    """The DUC 2006 pyramids, read once for the module (skipped without ../shared/realdata)."""
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not present")
    folder = REALDATA / "pyramid" / "duc2006"
    files = sorted(folder.glob("*.pyr"))
    assert len(files) == 20, f"expected the 20 DUC 2006 pyramids in {folder}"
    return [read_pyramid(f) for f in files]


@pytest.mark.realdata
def test_default_gives_the_papers_non_paraphrases_per_paraphrase_within_15_percent(duc2006):
    positive = negative = 0
    for pyramid in duc2006:
        pairs, _ = derive_tests(pyramid)
        labels = sum(p.label for p in pairs)
        positive += labels
        negative += len(pairs) - labels
    assert positive > 1000  # the whole set was really paired
    assert abs(negative / positive - PAPER_RATIO) <= 0.15 * PAPER_RATIO


@pytest.mark.realdata
def test_the_literal_reading_stays_an_order_of_magnitude_short(duc2006):
    literal = WordRules(shared_count="distinct", negative_summaries="any")
    assert measure(duc2006, literal)["ratio"] < PAPER_RATIO / 5


@pytest.mark.realdata
def test_the_readme_table_shows_what_the_script_measures(duc2006):
    """Each reading's row in the docs (pyramids page) has the ratio the script computes now."""
    readme = (ROOT / "docs" / "pyramids.md").read_text(encoding="utf-8")
    for reading in READINGS:
        row = next((line for line in readme.splitlines()
                    if line.startswith(f"| {reading.name} |")), None)
        assert row is not None, f"the pyramids page has no row for {reading.name!r}"
        shown = float(re.split(r"\s*\|\s*", row)[3])
        assert shown == round(measure(duc2006, reading.rules)["ratio"], 1), reading.name
