"""The table of readings of the pyramid benchmark's non-paraphrase rule, beside the paper.

Run: python tests/perf/pyramid_readings.py [FOLDER]   (about 10 s)

FOLDER defaults to ../shared/realdata/pyramid/duc2006 (the 20 DUC 2006 pyramids). For each
candidate reading of "both items must match on more than 3 words" (what a word is, how
shared words are counted, which pairs may be non-paraphrases, what a contributor's text is)
it derives both tests with the real code and prints one Markdown row: non-paraphrases per
paraphrase, paraphrases per pyramid, questions per pyramid and mean words per text (over
the texts that appear in at least one binary pair). `--json` prints the rows as JSON.

The paper (DUC 2005-2007) reports 8,390 paraphrases, 189,229 non-paraphrases (22.6 per
paraphrase), 8,755 ranking questions and texts of 12.1 words on average; it does not say
how many pyramids it used, so its per-pyramid figures are given for 63 to 93 pyramids.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from simrate.core.pyramid.pairs import derive_tests  # noqa: E402
from simrate.core.pyramid.words import WordRules, analyse  # noqa: E402
from simrate.formats.pyramids.pyramid import read_pyramid  # noqa: E402

DUC2006 = ROOT.parent / "shared" / "realdata" / "pyramid" / "duc2006"
PAPER = {"paraphrases": 8390, "non_paraphrases": 189229, "questions": 8755, "words": 12.1}
#: The paper's pyramid count is not given: DUC 2005-2007 main tasks to main + update tasks.
PAPER_PYRAMIDS = (63, 93)


def rules_of(flags: str) -> WordRules:
    """The WordRules of `simrate pyramid` with these flags (`--min-shared 2` is min_shared=2)."""
    words = flags.split()
    return WordRules(**{name[2:].replace("-", "_"): int(value) if value.isdigit() else value
                        for name, value in zip(words[::2], words[1::2], strict=True)})


@dataclass(frozen=True)
class Reading:
    """One candidate reading: what it says and its command-line flags, hence its rules."""

    name: str
    flags: str

    @property
    def rules(self) -> WordRules:
        return rules_of(self.flags)


ANY = "--negative-summaries any"
READINGS = (
    Reading("distinct words in common, more than 3 (the literal reading)",
            f"--shared-count distinct {ANY}"),
    Reading("the same, words split at spaces (case and punctuation kept)",
            f"--shared-count distinct --tokens whitespace {ANY}"),
    Reading("words in common counting repeats, more than 3", f"--shared-count tokens {ANY}"),
    Reading("content words (no stop words) in common, more than 3",
            f"--shared-count distinct --shared-words content {ANY}"),
    Reading("distinct words in common, 3 or more (the example's count)",
            f"--shared-count distinct --min-shared 3 {ANY}"),
    Reading("distinct words in common, 2 or more", f"--shared-count distinct --min-shared 2 {ANY}"),
    Reading("one content word in common",
            f"--shared-count distinct --shared-words content --min-shared 1 {ANY}"),
    Reading("matched words counted in both texts, more than 3", ANY),
    Reading("the same, words split at spaces", f"--tokens whitespace {ANY}"),
    Reading("the same, contributor labels as texts", f"--contributor-text label {ANY}"),
    Reading("**matched words counted in both texts, more than 3; contributors of one "
            "summary never paired (default)**", ""),
    Reading("distinct words in common, 2 or more; contributors of one summary never paired",
            "--shared-count distinct --min-shared 2"),
    Reading("no shared-word rule", f"--min-shared 0 {ANY}"),
    Reading("both texts have more than 3 words (a length rule)",
            f"--min-words 4 --min-shared 0 {ANY}"),
)


def measure(pyramids: list, rules: WordRules) -> dict:
    """The four figures of one reading over `pyramids`."""
    positive = negative = questions = 0
    words = 0
    texts = 0
    for pyramid in pyramids:
        pairs, found = derive_tests(pyramid, rules)
        labels = sum(p.label for p in pairs)
        positive += labels
        negative += len(pairs) - labels
        questions += len(found)
        used = {t.text_id: t.text for p in pairs for t in (p.left, p.right)}
        words += sum(analyse(text).n_words for text in used.values())
        texts += len(used)
    n = len(pyramids)
    return {"paraphrases": positive, "non_paraphrases": negative, "questions": questions,
            "ratio": negative / positive if positive else float("nan"),
            "paraphrases_per_pyramid": positive / n, "questions_per_pyramid": questions / n,
            "words_per_text": words / texts if texts else float("nan")}


def paper_row() -> str:
    """The paper's figures as a Markdown row."""
    low, high = PAPER_PYRAMIDS
    ratio = PAPER["non_paraphrases"] / PAPER["paraphrases"]
    per = [f"{PAPER[key] / high:.0f}-{PAPER[key] / low:.0f}" for key in ("paraphrases",
                                                                          "questions")]
    return f"| the paper, DUC 2005-2007 | | {ratio:.1f} | {per[0]} | {per[1]} | {PAPER['words']} |"


def main(argv: list[str]) -> int:
    """Print the table for the folder given (or DUC 2006)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DUC2006,
                        help="a folder of .pyr files (default: the DUC 2006 pyramids)")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    as_json, folder = opts.json, opts.folder
    files = sorted(folder.glob("*.pyr"))
    if not files:
        print(f"no .pyr files in {folder}", file=sys.stderr)
        return 2
    pyramids = [read_pyramid(f) for f in files]
    rows = [(reading, measure(pyramids, reading.rules)) for reading in READINGS]
    if as_json:
        print(json.dumps([{"reading": r.name, "flags": r.flags, **m} for r, m in rows]))
        return 0
    print(f"{len(pyramids)} pyramids in {folder.name}\n")
    print("| reading | `simrate pyramid` flags | non-paraphrases per paraphrase | "
          "paraphrases per pyramid | questions per pyramid | words per text |")
    print("|---|---|---|---|---|---|")
    print(paper_row())
    for reading, m in rows:
        flags = f"`{reading.flags}`" if reading.flags else "(none)"
        print(f"| {reading.name} | {flags} | {m['ratio']:.1f} | "
              f"{m['paraphrases_per_pyramid']:.0f} | {m['questions_per_pyramid']:.0f} | "
              f"{m['words_per_text']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
