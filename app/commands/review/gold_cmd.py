"""simrate gold PROJECT [--method {mean,median,model}] [--json]"""

from __future__ import annotations

import argparse
import json
import math

import pandas as pd

from simrate.core.base.frames import FIGURE_DECIMALS
from simrate.core.base.scale import fmt
from simrate.core.base.wording import counted
from simrate.core.project import Project
from simrate.core.review.crowd_gold import METHODS

#: The per-item keys of `gold --json`, in order (gold_low/gold_high with --method model).
ITEM_KEYS = ("item_id", "gold", "source", "n_ratings", "mean", "sd", "median",
             "gold_low", "gold_high", "flagged", "adjudicated")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate gold`."""
    p = sub.add_parser("gold", help="each item's gold score: the mean, the median, or a rater "
                                    "model's estimate with its 90% interval")
    p.add_argument("project")
    p.add_argument("--method", choices=METHODS, default="mean")
    p.add_argument("--json", action="store_true")


def _figure(value: object) -> object:
    """A number rounded to FIGURE_DECIMALS (None for NaN); other values as they are."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if math.isnan(value):
        return None
    return round(float(value), FIGURE_DECIMALS) if isinstance(value, float) else int(value)


def as_json(project: Project, gold: pd.DataFrame, method: str) -> dict:
    """{method, flag_rule, items: [{ITEM_KEYS}], raters: {name: {bias, noise, reliability,
    n}} (model only)}."""
    keys = [k for k in ITEM_KEYS if k in gold.columns]
    rows = gold[keys].astype(object).itertuples(index=False)
    items = [{k: _figure(v.item() if hasattr(v, "item") else v) for k, v in
              zip(keys, row, strict=True)} for row in rows]
    out: dict = {"method": method, "flag_rule": project.flag_rule.as_dict(), "items": items}
    if method == "model":
        out["raters"] = {name: {k: _figure(v) for k, v in figures.items()}
                         for name, figures in project.rater_model().items()}
    return out


def _text(gold: pd.DataFrame, method: str) -> list[str]:
    sources = gold["source"].replace("", "none").value_counts()
    lines = [f"{counted(len(gold), 'item')}, gold by {method}: "
             + ", ".join(f"{count} {source}" for source, count in sources.items())]
    interval = "gold_low" in gold.columns
    no_span = [math.nan] * len(gold)
    lows = gold["gold_low"].tolist() if interval else no_span
    highs = gold["gold_high"].tolist() if interval else no_span
    for item_id, value, low, high, source, n_ratings, flagged in zip(
            gold["item_id"].tolist(), gold["gold"].tolist(), lows, highs,
            gold["source"].tolist(), gold["n_ratings"].tolist(), gold["flagged"].tolist(),
            strict=True):
        shown = "-" if value != value else fmt(round(value, FIGURE_DECIMALS))
        span = (f"  [{fmt(round(low, FIGURE_DECIMALS))}, {fmt(round(high, FIGURE_DECIMALS))}]"
                if low == low else "")
        flag = "  FLAGGED" if flagged else ""
        lines.append(f"  {item_id}\t{shown}{span}\t{source or 'none'}\tn={n_ratings}{flag}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Print each item's gold under the chosen method."""
    with Project.open(args.project) as project:
        gold = project.gold(method=args.method)
        if args.json:
            print(json.dumps(as_json(project, gold, args.method), ensure_ascii=False,
                             allow_nan=False))
        else:
            print("\n".join(_text(gold, args.method)))
    return 0
