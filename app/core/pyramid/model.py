"""Pyramids: SCUs, contributors and parts, located in the model summaries they came from.

A pyramid (DUC's DUCView files) clusters fragments of several model summaries into summary
content units (SCUs). Each SCU has a label written by the annotator and one contributor per
model summary that expresses it; a contributor is one or more parts, each a span of the
summaries' text given by character offsets. Real files carry offsets that are a little off,
so every part is located again here: at its offsets if the text there is its label, else by
searching for the label nearby, ignoring whitespace. No XML here: app/formats/pyramids/pyramid.py
reads files and calls `build_pyramid`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate, islice

EXACT, RECOVERED, LOST = "exact", "recovered", "lost"

#: How far (in characters, each side of the given offsets) a misplaced part is searched for.
#: A DUC pyramid's text is 3,000-12,000 characters, so this covers the whole text of any
#: real file while keeping the search bounded in huge ones.
DEFAULT_SEARCH_WINDOW = 10_000
#: Characters the wide searches of one pyramid may scan in all (about a second of work).
DEFAULT_SEARCH_BUDGET = 50_000_000

_DASHED = re.compile(r"\s*-{3,}\s*")
_NON_WHITESPACE = re.compile(r"\S")


def _without_whitespace(text: str) -> str:
    """`text` with all whitespace removed (str.split and regex \\s agree on what it is)."""
    return "".join(text.split())
# Topic of a model summary id: `D0631.M.250.D.D` -> D0631, ` D0703-A.M.100.A.C` -> D0703-A.
_TOPIC_OF_SUMMARY = re.compile(r"\s*([^.\s]+)\.M\.")


@dataclass(slots=True)
class Part:
    """A span of the summaries' text: its label, the offsets written in the file, where found."""

    label: str
    start: int | None  # as written; None when missing or not an integer
    end: int | None
    line: int = 0  # line of the <part> element in its file
    found_start: int = -1  # where the part really is; -1 when lost
    found_end: int = -1
    status: str = ""  # EXACT, RECOVERED or LOST once located


@dataclass(slots=True)
class Contributor:
    """One model summary's expression of an SCU."""

    label: str
    parts: list[Part]
    line: int = 0
    summary_id: str = ""  # the model summary it came from; "" when none could be told
    text: str = ""  # its parts in text order, as they read in the summary


@dataclass(slots=True)
class Scu:
    """A summary content unit: the annotator's label and its contributors."""

    uid: str
    label: str
    contributors: list[Contributor]
    line: int = 0
    comment: str = ""

    @property
    def weight(self) -> int:
        """The pyramid weight: how many model summaries express this SCU."""
        return len(self.contributors)


@dataclass(frozen=True, slots=True)
class Summary:
    """A model summary inside the pyramid text: its id and its [start, end) character range."""

    summary_id: str
    start: int
    end: int


@dataclass
class Pyramid:
    """A located pyramid: its text, model summaries, SCUs and what went wrong on the way."""

    topic: str
    source: str
    text: str
    summaries: list[Summary]
    scus: list[Scu]
    warnings: list[tuple[int | None, str]] = field(default_factory=list)  # (line, message)

    def parts(self) -> list[Part]:
        """Every part of every contributor, in file order."""
        return [p for scu in self.scus for c in scu.contributors for p in c.parts]

    def part_counts(self) -> dict[str, int]:
        """How many parts were found exactly, recovered and lost."""
        counts = {EXACT: 0, RECOVERED: 0, LOST: 0}
        for part in self.parts():
            counts[part.status] += 1
        return counts


def collapse_whitespace(text: str) -> str:
    """`text` with every run of whitespace made one space, and no space at either end."""
    return " ".join(text.split())


def find_summaries(lines: list[str]) -> list[Summary]:
    """The model summaries: each starts at a dashed line, an id line and another dashed line.

    A summary's range runs from its first dashed line to the next summary's (so its
    separator belongs to it); text before the first separator belongs to no summary.
    """
    line_starts = []
    position = 0
    for line in lines:
        line_starts.append(position)
        position += len(line) + 1
    text_length = max(position - 1, 0)
    heads: list[tuple[int, str]] = []
    i = 0
    while i + 2 < len(lines):
        middle = lines[i + 1]
        if (_DASHED.fullmatch(lines[i]) and _DASHED.fullmatch(lines[i + 2])
                and middle.strip() and not _DASHED.fullmatch(middle)):
            heads.append((i, middle.strip()))
            i += 3
        else:
            i += 1
    summaries = []
    for k, (line_index, summary_id) in enumerate(heads):
        end = line_starts[heads[k + 1][0]] if k + 1 < len(heads) else text_length
        summaries.append(Summary(summary_id, line_starts[line_index], end))
    return summaries


def topic_of(summaries: list[Summary], fallback: str) -> str:
    """The topic named by the summary ids (`D0703-A.M.100.A.C` -> `D0703-A`), else `fallback`."""
    topics: set[str | None] = set()
    for summary in summaries:
        match = _TOPIC_OF_SUMMARY.match(summary.summary_id)
        topics.add(match.group(1) if match else None)
    only = topics.pop() if len(topics) == 1 else None
    return fallback if only is None else only


def _nearest(spans: list[tuple[int, int]], anchor: int) -> tuple[int, int] | None:
    """The span starting closest to `anchor` (the first of equals), or None."""
    if not spans:
        return None
    return min(spans, key=lambda span: abs(span[0] - anchor))


def _literal_spans(text: str, label: str, low: int, high: int) -> list[tuple[int, int]]:
    """Every occurrence of `label` inside text[low:high]."""
    spans = []
    position = text.find(label, low, high)
    while position >= 0:
        spans.append((position, position + len(label)))
        position = text.find(label, position + 1, high)
    return spans


class _WhitespaceFree:
    """The text without its whitespace, with a coarse map between the two kinds of position.

    Built chunk by chunk with C-speed substitutions; a position is translated by looking only
    inside its chunk, so the map costs one integer per CHUNK characters, not one per character.
    """

    CHUNK = 256

    def __init__(self, text: str):
        self.text = text
        pieces = [_without_whitespace(text[i:i + self.CHUNK])
                  for i in range(0, len(text), self.CHUNK)]
        self.compact = "".join(pieces)
        self.before = list(accumulate((len(p) for p in pieces), initial=0))

    def to_compact(self, position: int) -> int:
        """How many non-whitespace characters precede text position `position`."""
        chunk = position // self.CHUNK
        head = self.text[chunk * self.CHUNK:position]
        return self.before[chunk] + len(_without_whitespace(head))

    def to_text(self, index: int) -> int:
        """The text position of the compact text's character `index`."""
        chunk = bisect_right(self.before, index) - 1
        inside = _NON_WHITESPACE.finditer(self.text, chunk * self.CHUNK, (chunk + 1) * self.CHUNK)
        return next(islice(inside, index - self.before[chunk], None)).start()

    def spans(self, label: str, low: int, high: int) -> list[tuple[int, int]]:
        """Where `label` occurs in text[low:high] when whitespace is ignored on both sides."""
        compact_label = _without_whitespace(label)
        end = self.to_compact(high)
        spans = []
        position = self.compact.find(compact_label, self.to_compact(low), end)
        while position >= 0:
            spans.append((self.to_text(position),
                          self.to_text(position + len(compact_label) - 1) + 1))
            position = self.compact.find(compact_label, position + 1, end)
        return spans


class PartLocator:
    """Finds parts in one pyramid's text: at their offsets, else nearby ignoring whitespace.

    The search looks first within a short distance of the offsets, then within `window`
    characters. The wide searches of one pyramid scan at most `budget` characters in all, so
    a huge file full of misplaced parts cannot keep the reader busy for minutes; parts not
    found once it is spent are lost (and `budget_spent` says so).
    """

    NEAR = 256

    def __init__(self, text: str, window: int = DEFAULT_SEARCH_WINDOW,
                 budget: int = DEFAULT_SEARCH_BUDGET):
        self.text = text
        self.window = window
        self.budget = budget
        self.budget_spent = False
        self._whitespace_free: _WhitespaceFree | None = None

    def locate(self, part: Part) -> None:
        """Set the part's found_start/found_end and status (exact, recovered or lost)."""
        text, start, end = self.text, part.start, part.end
        if (part.label.strip() and start is not None and end is not None
                and 0 <= start <= end <= len(text) and text[start:end] == part.label):
            part.found_start, part.found_end, part.status = start, end, EXACT
            return
        span = self._find(part) if part.label.strip() else None
        if span is None:
            part.found_start, part.found_end, part.status = -1, -1, LOST
        else:
            part.found_start, part.found_end = span
            part.status = RECOVERED

    def _find(self, part: Part) -> tuple[int, int] | None:
        """The nearest occurrence of the part's label: close by, else within the window."""
        anchor = min(max(part.start if part.start is not None else 0, 0), len(self.text))
        span = self._search(part.label, anchor, min(self.NEAR, self.window))
        if span is not None or self.window <= self.NEAR:
            return span
        scanned = 2 * self.window + len(part.label)
        if scanned > self.budget:
            self.budget_spent = True
            return None
        self.budget -= scanned
        return self._search(part.label, anchor, self.window)

    def _search(self, label: str, anchor: int, window: int) -> tuple[int, int] | None:
        """The occurrence of `label` nearest `anchor` within `window`: literal, else loose.

        Ignoring whitespace finds parts whose label lost a line break ("Church.Others")
        or gained a double space.
        """
        low = max(0, anchor - window)
        high = min(len(self.text), anchor + len(label) + window)
        spans = _literal_spans(self.text, label, low, high)
        if not spans:
            if self._whitespace_free is None:
                self._whitespace_free = _WhitespaceFree(self.text)
            spans = self._whitespace_free.spans(label, low, high)
        return _nearest(spans, anchor)


def locate_part(text: str, part: Part, window: int = DEFAULT_SEARCH_WINDOW) -> None:
    """Find one part in `text`, setting its found_start/found_end and status."""
    PartLocator(text, window).locate(part)


def _summary_at(summaries: list[Summary], starts: list[int], position: int) -> str:
    """The id of the summary whose range holds `position`, or "" for the preamble."""
    index = bisect_right(starts, position) - 1
    if index < 0 or position >= summaries[index].end:
        return ""
    return summaries[index].summary_id


def resolve_contributor(contributor: Contributor, text: str, summaries: list[Summary],
                        summary_starts: list[int]) -> None:
    """Set the contributor's text (its parts in text order) and the summary it came from."""
    # Lost parts keep their written position for ordering, after located ones at equal places.
    def order(part: Part) -> tuple[int, int]:
        """Sort key: where the part is (or claims to be)."""
        if part.found_start >= 0:
            return (part.found_start, 0)
        return (part.start if part.start is not None else len(text), 1)

    ordered = sorted(contributor.parts, key=order)
    pieces = [text[p.found_start:p.found_end] if p.found_start >= 0 else p.label for p in ordered]
    contributor.text = collapse_whitespace(" ".join(pieces))
    located = [p.found_start for p in ordered if p.found_start >= 0]
    contributor.summary_id = _summary_at(summaries, summary_starts, located[0]) if located else ""


def build_pyramid(lines: list[str], scus: list[Scu], source: str = "", fallback_topic: str = "",
                  window: int = DEFAULT_SEARCH_WINDOW,
                  warnings: list[tuple[int | None, str]] | None = None) -> Pyramid:
    """Locate every part of `scus` in the text of `lines` and return the pyramid.

    The text is the lines joined with newlines (the offsets' frame of reference). SCUs with
    no contributors are dropped with a warning; parts not found get a warning each.
    """
    text = "\n".join(lines)
    summaries = find_summaries(lines)
    summary_starts = [s.start for s in summaries]
    locator = PartLocator(text, window)
    notes = list(warnings or [])
    kept = []
    for scu in scus:
        if not scu.contributors:
            notes.append((scu.line, f"SCU {scu.uid} has no contributors; skipped"))
            continue
        for contributor in scu.contributors:
            for part in contributor.parts:
                locator.locate(part)
                if part.status == LOST:
                    notes.append((part.line, f"part {part.label[:60]!r} of SCU {scu.uid} not found "
                                             f"near offsets {part.start}-{part.end}; its label is used"))
            resolve_contributor(contributor, text, summaries, summary_starts)
        kept.append(scu)
    if locator.budget_spent:
        notes.append((None, "too many misplaced parts: the wide search stopped early"))
    topic = topic_of(summaries, fallback_topic)
    return Pyramid(topic=topic, source=source, text=text, summaries=summaries, scus=kept,
                   warnings=notes)
