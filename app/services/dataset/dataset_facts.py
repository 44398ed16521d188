"""What a dataset folder's card says about a project, gathered from the code that computes it.

Agreement is `simrate agreement`'s report (app/core/agreement/reports/long_report.py) over
the inputs that command reads (Project.agreement_columns); the machine raters' figures are
`simrate machine`'s (app/core/machine/report.py); exclusions and check items come from the
team modules. Nothing here computes a figure a second way: it only renames raters to their
pseudonyms and counts rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from simrate.core.agreement.batch import LEVELS
from simrate.core.agreement.intervals import DEFAULT_CI_METHOD
from simrate.core.agreement.reports.long_report import long_agreement_report
from simrate.core.agreement.reports.report import Report
from simrate.core.agreement.sparse import DEFAULT_MIN_OVERLAP
from simrate.core.base.flagrule import FlagRule
from simrate.core.machine.alt_test import DEFAULT_EPSILON
from simrate.core.machine.report import machine_report
from simrate.core.team.exclusion import last_rule
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD, check_scores
from simrate.services.dataset.pseudonyms import KIND_WORDS, Pseudonyms

if TYPE_CHECKING:
    from simrate.core.base.scale import Scale
    from simrate.core.project import Project


#: The level the card leads with (graded similarity scales are interval data), and the
#: commands whose JSON the card's figures are.
PROJECT_LEVEL = "interval"
AGREEMENT_COMMAND = "simrate agreement PROJECT --level all --ci --json"
MACHINE_COMMAND = "simrate machine PROJECT --json"


def _published_report(report: Report, names: Pseudonyms) -> dict:
    """`agreement --json` with the raters' pseudonyms, and why each n/a figure is n/a."""
    figures = report.to_json()
    figures["annotators"] = [names[a] for a in figures["annotators"]]
    figures["pearson"] = {names[a]: names.rename_keys(row)
                          for a, row in figures["pearson"].items()}
    figures["pearson_vs_rest"] = names.rename_keys(figures["pearson_vs_rest"])
    return figures


def _reasons(report: Report, names: Pseudonyms) -> dict[str, str]:
    """{figure key: reason} of the undefined figures, keyed `alpha/interval`, `pearson/a/b`."""
    return {"/".join(names.names.get(str(p), str(p)) for p in key): reason
            for key, reason in report.reasons.items()}


def agreement_facts(project: Project, names: Pseudonyms) -> dict:
    """The figures of `agreement --level all --ci --json`, raters under pseudonyms."""
    long, unadjudicated, _ = project.agreement_columns()
    report = long_agreement_report(long, list(LEVELS), None, unadjudicated, ci=True,
                                   ci_method=DEFAULT_CI_METHOD,
                                   min_overlap=DEFAULT_MIN_OVERLAP)
    return {"level": PROJECT_LEVEL, "figures": _published_report(report, names),
            "reasons": _reasons(report, names), "ci_method": DEFAULT_CI_METHOD,
            "command": AGREEMENT_COMMAND}


def machine_facts(project: Project, names: Pseudonyms) -> dict:
    """`machine --json` with pseudonyms ({"machines": {}} without machine raters)."""
    report = machine_report(project, DEFAULT_EPSILON)
    published = {}
    for machine, entry in report["machines"].items():
        entry = dict(entry)
        entry["pearson"] = names.rename_keys(entry["pearson"])
        test = dict(entry["alt_test"])
        test["humans"] = names.rename_keys(test["humans"])
        entry["alt_test"] = test
        published[names[machine]] = entry
    return {"machines": published, "command": MACHINE_COMMAND}


def rater_counts(ratings: pd.DataFrame, names: Pseudonyms) -> list[dict]:
    """Per kind of rater: raters, the items they scored, scores and skips."""
    kinds = ratings["annotator"].map(names.kind)
    scored = ratings["score"].notna().to_numpy() & ~ratings["skipped"].to_numpy(dtype=bool)
    rows = []
    for kind in KIND_WORDS.values():
        mine = (kinds == kind).to_numpy()
        if not mine.any():
            continue
        rows.append({"kind": kind,
                     "raters": int(ratings["annotator"][mine].nunique()),
                     "items": int(ratings["item_id"][mine & scored].nunique()),
                     "scores": int((mine & scored).sum()),
                     "skips": int((mine & ~scored & ratings["skipped"].to_numpy(bool)).sum())})
    return rows


def review_facts(gold_rows: Mapping[str, np.ndarray], rule: FlagRule | float) -> dict:
    """How many items the flag rule caught, and how each item's gold was settled."""
    rule = rule if isinstance(rule, FlagRule) else FlagRule("range", rule)
    threshold = rule.range_threshold
    resolution = np.asarray(gold_rows["resolution"], dtype=object)
    settled, counts = np.unique(resolution.astype(str), return_counts=True)
    flagged = np.asarray(gold_rows["flagged"], dtype=bool)
    adjudicated = resolution == "adjudicated"
    return {"threshold": threshold, "rule": rule.as_dict(), "items": len(resolution),
            "flagged": int(flagged.sum()),
            "flagged_adjudicated": int((flagged & adjudicated).sum()),
            "adjudicated": int(adjudicated.sum()),
            "resolution": {str(k): int(v) for k, v in zip(settled, counts, strict=True)}}


def exclusion_facts(project: Project, names: Pseudonyms) -> dict:
    """Excluded raters (pseudonyms, kinds), the check items and the check-item rule."""
    left_out = set(project.excluded_annotators())
    excluded = [a for a in project.annotators() if a in left_out]
    rule = last_rule(project)
    by_rule = set(rule["annotators"]) if rule else set()
    still = [a for a in excluded if a in by_rule]
    return {
        "excluded": [{"rater": names[a], "kind": names.kind[a],
                      "by_rule": a in by_rule} for a in excluded],
        "check_items": len(check_scores(project)),
        "check_threshold": DEFAULT_CHECK_THRESHOLD,
        "rule": None if rule is None else {"threshold": float(rule["threshold"]),
                                            "excluded": [names[a] for a in still]},
        "machines": [names[m] for m in project.roster.machines()],
    }


def scale_facts(scale: Scale) -> dict:
    """The scale: range, step, labelled points with their guidelines, and its description."""
    return {"name": scale.name, "title": scale.title, "description": scale.description,
            "low": scale.low, "high": scale.high, "step": scale.step,
            "points": [{"value": p.value, "label": p.label, "guideline": p.guideline}
                       for p in sorted(scale.points, key=lambda p: -p.value)]}


def size_category(rows: int) -> str:
    """The Hub's size_categories bucket for a row count."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
              (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"),
              (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B")]
    return next((name for bound, name in bounds if rows < bound), "1B<n<10B")


def spread_of(gold: pd.DataFrame) -> np.ndarray:
    """max - min of each item's counted ratings (NaN without ratings)."""
    return (gold["max"] - gold["min"]).to_numpy(dtype="float64")


def annotation_counts(n_ratings: object) -> dict:
    """Counted ratings per item: mean, fewest and most (0 for a project without ratings)."""
    counts = np.asarray(n_ratings, dtype="float64")
    if not len(counts):
        return {"mean": 0.0, "min": 0, "max": 0}
    return {"mean": float(counts.mean()), "min": int(counts.min()), "max": int(counts.max())}


def time_frame(ratings: pd.DataFrame) -> list[str] | None:
    """The dates (UTC) of the first and the last rating stored, None without any."""
    stamps = ratings["updated_at"].dropna().to_numpy(dtype="float64")
    if not len(stamps):
        return None
    return [dt.datetime.fromtimestamp(t, dt.timezone.utc).date().isoformat()
            for t in (stamps.min(), stamps.max())]
