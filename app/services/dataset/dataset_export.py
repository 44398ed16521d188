"""`simrate export PROJECT DIR --format dataset`: a folder `datasets` loads and Croissant reads.

The folder holds data/gold-<split>.jsonl and data/ratings-<split>.jsonl (two configurations
of one dataset), README.md (the data card: YAML front matter, then the scale, guidelines,
raters, agreement and review record) and croissant.json. Raters appear under pseudonyms
(services/dataset/pseudonyms.py) unless `keep_rater_names`; notes only with `with_notes`. The
folder is written as a hidden sibling and renamed into place when complete.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import COUNT_PREFIX, FIGURE_COLUMNS, crowd_columns
from simrate.core.base.scale import Scale
from simrate.core.review.gold import (
    blocking_flags,
    check_resolved,
    compute_gold,
    rule_met,
    second_look_items,
    unresolved_counts,
)
from simrate.core.team.quality import check_scores
from simrate.formats.dataset.dataset_files import Field
from simrate.formats.dataset.dataset_folder import (
    check_folder_target,
    check_language,
    check_license,
    check_split,
)
from simrate.formats.dataset.dataset_previous import is_dataset_folder, read_previous
from simrate.formats.output.export import Progress, figure_decimals, rounded
from simrate.services.dataset.dataset_columns import source_columns
from simrate.services.dataset.dataset_facts import (
    agreement_facts,
    annotation_counts,
    exclusion_facts,
    machine_facts,
    rater_counts,
    review_facts,
    scale_facts,
    spread_of,
    time_frame,
)
from simrate.services.dataset.dataset_splits import plan_splits
from simrate.services.dataset.dataset_writing import COLUMN_STYLES, renamed, write_folder
from simrate.services.dataset.pseudonyms import Pseudonyms

if TYPE_CHECKING:
    from simrate.core.project import Project


GOLD_FIELDS = [
    Field("item_id", "string", "The item's id in the project (`<dataset>:<id>` for task files).",
          repeats=False),
    Field("left", "string", "The first text of the pair.", repeats=False),
    Field("right", "string", "The second text of the pair.", repeats=False),
    Field("dataset", "string", "The set the item came from (an STS set name, a CLSS level), "
          "or empty."),
    Field("genre", "string", "The genre the source file gave, or empty."),
    Field("reference", "float", "The score the source file carried, if any (not the gold)."),
    Field("gold", "float", "The gold score: the adjudicated score, else the mean of the "
          "counted ratings (or their median, or the rater model's estimate, as the card says); "
          "null when the item has neither."),
    Field("n_ratings", "int", "How many counted ratings the item has."),
    Field("mean", "float", "The mean of the counted ratings (null without ratings)."),
    Field("sd", "float", "The population standard deviation (ddof=0) of the counted ratings "
          "(0 for one rating, null for none)."),
    Field("spread", "float", "The largest minus the smallest counted rating (null without "
          "ratings)."),
    Field("flagged", "bool", "The counted ratings meet the project's flag rule (see the card), "
          "adjudicated since or not: too far apart (range), or too uncertain a crowd gold "
          "(uncertain)."),
    Field("resolution", "string", "How the gold was settled: adjudicated, mean, single (one "
          "rating), median or model (the method asked for), unresolved (flagged by the range "
          "rule, not adjudicated: the mean) or unrated."),
    Field("adjudicated_by", "string", "Who adjudicated the item (a pseudonym), or null."),
    Field("check_item", "bool", "The item was a check item of known score mixed in to "
          "test raters."),
]
NOTE_FIELD = Field("note", "string", "The adjudicator's note (exported with --with-notes).")
RATING_FIELDS = [
    Field("item_id", "string", "The rated item (item_id of the gold configuration)."),
    Field("rater", "string", "The rater's pseudonym: rater-NN (person), crowd-NNNN (crowd "
          "worker), machine-NN (machine rater)."),
    Field("rater_kind", "string", "person, crowd or machine."),
    Field("score", "float", "The score given (null when skipped)."),
    Field("seconds", "float", "Seconds the rater spent on the item, when recorded."),
    Field("skipped", "bool", "The rater skipped the item."),
    Field("excluded", "bool", "The rater is excluded: the rating counts in neither gold nor "
          "agreement (machine raters never count)."),
]
RATING_NOTE = Field("note", "string", "The rater's note (exported with --with-notes).")


#: The gold configuration's computed columns, written rounded to the export's figure decimals
#: (spread, a difference of two grid values, rounds back onto the grid: 0.2, not
#: 0.19999999999999998).
FIGURE_FIELDS = (*FIGURE_COLUMNS, "spread")


def printed_figures(rows: dict[str, np.ndarray], scale: Scale) -> dict[str, np.ndarray]:
    """The rows with their figure columns rounded as the TSV and JSONL exports round them."""
    decimals = figure_decimals(scale)
    return rows | {key: rounded(values, decimals) for key, values in rows.items()
                   if key in FIGURE_FIELDS}


@dataclass(frozen=True)
class DatasetOptions:
    """The choices of `--format dataset` (DESIGN.md)."""

    split: str = "train"
    license: str = "unknown"
    title: str = ""
    keep_rater_names: bool = False
    with_notes: bool = False
    language: str = "en"
    #: Source columns to publish beyond the safe ones (--keep-column, repeatable).
    keep_columns: tuple[str, ...] = ()
    #: Several splits, (name, its datasets) each (--split NAME=DATASET,...); none: `split`.
    splits: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Add the splits to the dataset folder at the target (--add).
    add: bool = False
    creators: tuple[str, ...] = ()
    #: The BibTeX entry to cite (the text of --citation FILE), or "".
    citation: str = ""
    url: str = ""
    version: str = "1.0.0"
    #: Column names of the gold configuration: simrate (left, right, gold) or hf.
    columns: str = "simrate"


#: Scales with at most this many grid values get a count field per value in `gold`
#: (a 0.1 grid on 0 to 5 has 51); finer ones only when the core's crowd rule asks.
MAX_COUNT_FIELDS = 101
_VERSION = re.compile(r"\d+\.\d+\.\d+")
_URL = re.compile(r"https?://[^\s/]+\S*")


def checked_options(options: DatasetOptions) -> DatasetOptions:
    """The options with the licence in its canonical spelling; SimrateError for a bad
    split, licence, language, url, version, column style or citation."""
    check_split(options.split)
    check_language(options.language)
    if not _VERSION.fullmatch(options.version):
        raise SimrateError(f"--version {options.version!r}: give MAJOR.MINOR.PATCH, such as "
                           "1.0.0 (Croissant's rule)")
    if options.url and not _URL.fullmatch(options.url):
        raise SimrateError(f"--url {options.url!r}: give the dataset's page, http:// or "
                           "https://")
    if options.columns not in COLUMN_STYLES:
        raise SimrateError(f"--columns {options.columns!r}: give simrate or hf")
    if options.citation and not re.match(r"\s*@\w+\s*\{", options.citation):
        raise SimrateError("--citation: the file holds no BibTeX entry (@article{...}, "
                           "@misc{...})")
    return dataclasses.replace(options, license=check_license(options.license))


def _text(values: object) -> np.ndarray:
    """A text column as a plain object array."""
    return np.asarray(values, dtype=object)


#: The crowd columns of a gold table as fields of the gold configuration.
CROWD_FIELDS = {
    "median": Field("median", "float", "The median of the counted ratings."),
    "gold_low": Field("gold_low", "float", "The lower end of the rater model's 90% interval "
                      "for the gold (the verdict itself for an adjudicated item)."),
    "gold_high": Field("gold_high", "float", "The upper end of the rater model's 90% "
                       "interval for the gold."),
}


def _crowd_fields(gold: pd.DataFrame, rows: dict) -> list[Field]:
    """Fields for the crowd columns the gold table has: median, the model's interval, and
    `count_<value>` (dots as `_`): how many counted ratings are on each grid value."""
    fields = []
    for column in crowd_columns(gold):
        if column in CROWD_FIELDS:
            rows[column] = gold[column].to_numpy(dtype="float64")
            fields.append(CROWD_FIELDS[column])
            continue
        value = column[len(COUNT_PREFIX):]
        name = "count_" + value.replace(".", "_").replace("-", "minus_")
        rows[name] = gold[column].to_numpy(dtype="int64")
        fields.append(Field(name, "int", f"How many counted ratings are {value}."))
    return fields


def gold_rows(project: Project, gold: pd.DataFrame, items: pd.DataFrame,
              adjudications: pd.DataFrame, names: Pseudonyms, with_notes: bool,
              keep: tuple[str, ...] = ()
              ) -> tuple[dict[str, np.ndarray], list[Field], list[str]]:
    """The gold configuration's columns and fields (the source's extra fields named in
    `keep` added), and what was left out for privacy ("field: why")."""
    by = dict(zip(adjudications["item_id"], adjudications["by"].fillna(""), strict=True))
    item_ids = _text(gold["item_id"])
    resolution = np.where(blocking_flags(gold), "unresolved", _text(gold["source"]))
    resolution = np.where(gold["gold"].isna().to_numpy(), "unrated", resolution)
    adjudicated = np.flatnonzero(gold["adjudicated"].to_numpy(dtype=bool))
    adjudicated_by = np.full(len(gold), None, dtype=object)
    adjudicated_by[adjudicated] = [names.of(by.get(i)) for i in item_ids[adjudicated].tolist()]
    rows = {
        "item_id": item_ids, "left": _text(gold["left"]), "right": _text(gold["right"]),
        "dataset": _text(gold["dataset"]), "genre": _text(gold["genre"]),
        "reference": items["reference"].to_numpy(dtype="float64"),
        "gold": gold["gold"].to_numpy(dtype="float64"), "n_ratings": gold["n_ratings"],
        "mean": gold["mean"].to_numpy(dtype="float64"),
        "sd": gold["sd"].to_numpy(dtype="float64"), "spread": spread_of(gold),
        "flagged": rule_met(gold, project.scale, project.flag_rule),
        "resolution": _text(resolution), "adjudicated_by": adjudicated_by,
        "check_item": pd.Index(item_ids).isin(list(check_scores(project))),
    }
    fields = list(GOLD_FIELDS) + _crowd_fields(gold, rows)
    people = [*names.names, *adjudications["by"].fillna("").tolist()]
    kept, rows_left_out = source_columns(items["meta"].tolist(), rows, people, keep,
                                         names.keep_names, with_notes)
    fields += kept
    if with_notes:
        rows["note"] = _text(gold["note"].replace("", None))
        fields.append(NOTE_FIELD)
    return rows, fields, rows_left_out


def rating_rows(ratings: pd.DataFrame, names: Pseudonyms, excluded: set[str],
                with_notes: bool) -> tuple[dict[str, np.ndarray], list[Field]]:
    """The ratings configuration: every score and skip, raters under their pseudonyms."""
    skipped = ratings["skipped"].to_numpy(dtype=bool)
    keep = ratings["score"].notna().to_numpy() | skipped
    codes, raters = pd.factorize(_text(ratings["annotator"])[keep])
    rows = {
        "item_id": _text(ratings["item_id"])[keep],
        "rater": _text([names[r] for r in raters])[codes],
        "rater_kind": _text([names.kind[r] for r in raters])[codes],
        "score": ratings["score"].to_numpy(dtype="float64")[keep],
        "seconds": ratings["seconds"].to_numpy(dtype="float64")[keep],
        "skipped": skipped[keep],
        "excluded": np.isin(raters, list(excluded))[codes] if len(raters) else skipped[keep],
    }
    fields = list(RATING_FIELDS)
    if with_notes:
        rows["note"] = _text(ratings["note"].replace("", None))[keep]
        fields.append(RATING_NOTE)
    return rows, fields


def _card_facts(project: Project, options: DatasetOptions, names: Pseudonyms,
                rows: dict[str, np.ndarray], ratings: pd.DataFrame) -> dict:
    """Everything the card and croissant.json say besides the files."""
    title = options.title or project.title or project.path.stem
    return {
        "title": title, "license": options.license, "language": options.language,
        "scale": scale_facts(project.scale), "raters": rater_counts(ratings, names),
        "agreement": agreement_facts(project, names), "machines": machine_facts(project, names),
        "review": review_facts(rows, project.flag_rule),
        "exclusions": exclusion_facts(project, names),
        "pseudonyms": not options.keep_rater_names, "with_notes": options.with_notes,
        "date": dt.date.today().isoformat(), "creators": list(options.creators),
        "citation": options.citation, "url": options.url, "version": options.version,
        "annotations": annotation_counts(rows["n_ratings"]),
        "time_frame": time_frame(ratings),
    }


@dataclass(frozen=True)
class DatasetResult:
    """What export_dataset wrote and found, for the export report."""

    path: Path
    gold: pd.DataFrame
    unresolved: dict[str, int]
    second_look: int
    left_out: list[str]
    #: Items in no split (--split NAME=DATASET,... naming not every set).
    outside: int = 0


def export_dataset(project: Project, out: str | Path, options: DatasetOptions,
                   allow_unresolved: bool = False,
                   progress: Progress | None = None,
                   gold_method: str = "mean") -> DatasetResult:
    """Write the dataset folder; RuleError (nothing written) while items are unresolved
    (items flagged as uncertain crowd gold are not: their flag is a field)."""
    target = check_folder_target(out, [project.path])
    options = checked_options(options)
    if options.add and not is_dataset_folder(target):
        raise SimrateError("--add adds a split to a dataset folder simrate wrote; this is "
                           "none (export without --add first)", target)
    if not project.n_items:
        raise SimrateError("the project has no items: a dataset needs at least one",
                           project.path)
    with project.snapshot():  # the files and the card's figures from one state of the file
        return _export(project, target, options, allow_unresolved, progress, gold_method)


def _export(project: Project, target: Path, options: DatasetOptions, allow_unresolved: bool,
            progress: Progress | None, gold_method: str = "mean") -> DatasetResult:
    """export_dataset's reading and writing, inside one read transaction."""
    # each table read once: the gold, the ratings file and the card share them
    items, ratings, adjudications = project.items(), project.ratings(), project.adjudications()
    not_counted = project.roster.left_out()
    gold = compute_gold(items, ratings, adjudications, project.scale, project.flag_rule,
                        not_counted, project.annotators(), method=gold_method,
                        crowd=True if project.scale.n_codes <= MAX_COUNT_FIELDS else None)
    counts = unresolved_counts(gold) if allow_unresolved else check_resolved(gold, project.path)
    previous = read_previous(target, options.add) if is_dataset_folder(target) else None
    plan, outside = plan_splits(options.split, options.splits, _text(items["dataset"]),
                                list(previous.files.get("gold", {}) if previous and
                                      options.add else {}))
    names = Pseudonyms(project.annotators(), project.roster.kinds(),
                       adjudications["by"].fillna("").tolist(), options.keep_rater_names)
    rows, fields, dropped = gold_rows(project, gold, items, adjudications, names,
                                      options.with_notes, options.keep_columns)
    del items
    rated = rating_rows(ratings, names, set(project.excluded_annotators()), options.with_notes)
    facts = _card_facts(project, options, names, rows, ratings) | {
        "left_out": dropped, "author": previous.author if previous else None}
    write_folder(target, facts, renamed((printed_figures(rows, project.scale), fields),
                                        options.columns),
                 rated, plan, previous, options.add, progress)
    late = second_look_items(ratings, adjudications, project.scale, project.threshold,
                             not_counted)
    return DatasetResult(target, gold, counts, len(late), dropped,
                         0 if options.add else outside)  # --add: the rest are in old splits
