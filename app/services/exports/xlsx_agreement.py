"""The `agreement` sheet of the XLSX report: alpha by dataset, correlations, distributions.

Alpha is reported per dataset over all items and over the items that needed no
adjudication (neither flagged nor adjudicated) side by side, as in the CLSS 2014 task
paper's Table 4; then the Pearson matrix between raters and each rater against the mean of
the others, overall and per dataset; then how often each rater gave each score, with a
bar chart. Undefined figures are empty cells with the reason beside them. The figures come
from simrate.core.agreement.reports.report, so they are those of `simrate agreement --by dataset`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
import pandas as pd
from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.utils import get_column_letter

from simrate.core.agreement.reports.report import RatingsMatrix, Report, agreement_report
from simrate.core.base.flagrule import FlagRule
from simrate.core.base.frames import RATING_PREFIX, annotator_columns
from simrate.core.base.scale import Scale, fmt
from simrate.core.review.reliability import gold_reliability, raters_needed
from simrate.formats.spreadsheet.xlsx_report import (
    SECTION_FONT,
    TITLE_FONT,
    CellMaker,
    new_sheet,
)

ALPHA_HEADER = ["dataset", "items", "items with 2+ ratings", "flagged", "adjudicated",
                "alpha (all items)", "undisputed items (never flagged nor adjudicated)",
                "alpha (undisputed items only)", "remark"]
WIDTHS = [24, 10, 14, 10, 12, 14, 16, 14, 36, 12, 12, 12, 12, 12, 12, 12]
NUMBER_FORMAT = "0.000"
ALL = "(all)"


class AgreementSheet:
    """Writes the agreement sheet top to bottom, remembering the row it is on."""

    def __init__(self, book: Workbook, gold: pd.DataFrame, scale: Scale):
        self.sheet = new_sheet(book, "agreement", WIDTHS, freeze=False)
        self.maker = CellMaker(self.sheet)
        self.row = 0
        self.scale = scale
        # a rater with no scored rating (only skips) has nothing to agree or disagree with
        columns = [c for c in annotator_columns(gold) if gold[c].notna().any()]
        self.raters = [c[len(RATING_PREFIX):] for c in columns]
        self.data = gold[columns].to_numpy(dtype="float64").T if columns else np.empty(
            (0, len(gold)))
        self.datasets = gold["dataset"].fillna("").to_numpy(dtype=object)
        self.groups = [ALL] + sorted(set(self.datasets.tolist()))
        self.calm = ~(gold["flagged"].to_numpy(dtype=bool) | gold["adjudicated"].to_numpy(
            dtype=bool))
        item_ids = gold["item_id"].tolist()
        self.figures = agreement_report(
            RatingsMatrix(self.data, self.raters, item_ids), ("interval",),
            group_of=dict(zip(item_ids, self.datasets.tolist(), strict=True)),
            subset=[item for item, calm in zip(item_ids, self.calm.tolist(), strict=True)
                    if calm])

    def append(self, row: list) -> None:
        """Append one row and count it."""
        self.sheet.append(row)
        self.row += 1

    def blank(self) -> None:
        """An empty spacer row."""
        self.append([])

    def section(self, text: str) -> None:
        """A bold section heading after a spacer row."""
        self.blank()
        self.append([self.maker.styled(text, font=SECTION_FONT)])

    def number(self, value: float | None) -> object:
        """A three-decimal number cell, or an empty cell for an undefined figure."""
        if value is None or value != value:
            return None
        return self.maker.styled(float(value), number_format=NUMBER_FORMAT)

    def mask(self, group: str) -> np.ndarray:
        """Items of a group (all items for `(all)`)."""
        if group == ALL:
            return np.ones(self.datasets.shape, dtype=bool)
        return self.datasets == group

    def scope(self, group: str) -> Report:
        """The agreement figures of a group (of all items for `(all)`)."""
        return self.figures if group == ALL else self.figures.groups[group]

    def group_label(self, group: str) -> str:
        """A dataset name as shown in the sheet."""
        return group or "(no dataset)"


def _alpha_rows(report: AgreementSheet, flagged: np.ndarray, adjudicated: np.ndarray) -> None:
    """Table 4: per dataset, alpha over all items and over the unadjudicated ones."""
    report.append(report.maker.header(ALPHA_HEADER))
    for group in report.groups[1:] + [ALL]:
        mask = report.mask(group)
        scope = report.scope(group)
        reasons = [(what, scope.reasons.get((key, "interval"))) for what, key in
                   (("all items", "alpha"), ("undisputed items", "alpha_unadjudicated"))]
        remark = "; ".join(f"{what}: {reason}" for what, reason in reasons if reason)
        report.append([
            report.maker.text(report.group_label(group)), scope.figures["items"],
            scope.figures["pairable_items"],
            int(flagged[mask].sum()), int(adjudicated[mask].sum()),
            report.number(scope.figures["alpha"]["interval"]),
            int((mask & report.calm).sum()),
            report.number(scope.figures["alpha_unadjudicated"]["interval"]),
            report.maker.text(remark) if remark else None,
        ])


def _pearson_rows(report: AgreementSheet) -> None:
    """Pearson r between every two raters over the items both rated, per group."""
    for group in report.groups:
        # raters without a rating in the group are left out of its figures: empty cells
        pearson = report.scope(group).figures["pearson"]
        report.append(report.maker.header([report.group_label(group), *report.raters]))
        for name in report.raters:
            row = pearson.get(name, {})
            report.append([report.maker.text(name),
                           *[report.number(row.get(other)) for other in report.raters]])
        report.blank()


def _vs_rest_rows(report: AgreementSheet) -> None:
    """Each rater against the mean of the other raters, per group (columns)."""
    labels = [report.group_label(g) for g in report.groups]
    report.append(report.maker.header(["rater", *labels]))
    for name in report.raters:
        values = [report.scope(g).figures["pearson_vs_rest"].get(name) for g in report.groups]
        report.append([report.maker.text(name), *[report.number(v) for v in values]])
    _na_notes(report)


def _na_notes(report: AgreementSheet) -> None:
    """Why the empty Pearson cells above are empty, in the words of `agreement`'s n/a notes."""
    reasons = sorted({reason for group in report.groups
                      for key, reason in report.scope(group).reasons.items()
                      if key[0] in ("pearson", "pearson_vs_rest")})
    for reason in reasons:
        report.append([report.maker.text(f"n/a (empty cell): undefined because {reason}")])


def _distribution_rows(report: AgreementSheet) -> tuple[int, int]:
    """Counts of each score per rater; returns the (header row, last row) for the chart."""
    scale = report.scale
    report.append(report.maker.header(["score", *report.raters]))
    header_row = report.row
    codes = np.rint((report.data - scale.low) / scale.step)
    for code in range(scale.n_codes):
        counts = [int((codes[i] == code).sum()) for i in range(len(report.raters))]
        report.append([fmt(scale.from_code(code)), *counts])
    return header_row, report.row


def _chart(report: AgreementSheet, header_row: int, last_row: int) -> None:
    """A clustered bar chart of the rating distribution, one series per rater."""
    if not report.raters:
        return
    chart = BarChart()
    chart.type = "col"
    chart.title = "Ratings given, per score and rater"
    chart.y_axis.title = "ratings"
    chart.x_axis.title = "score"
    chart.height, chart.width = 9, 18
    data = Reference(report.sheet, min_col=2, max_col=1 + len(report.raters),
                     min_row=header_row, max_row=last_row)
    categories = Reference(report.sheet, min_col=1, min_row=header_row + 1, max_row=last_row)
    chart.add_data(data, titles_from_data=True)
    chart.set_categories(categories)
    column = get_column_letter(len(report.raters) + 3)  # beside the counts it draws
    # types-openpyxl gives the write-only sheet the full sheet's add_chart, self type and all
    report.sheet.add_chart(chart, f"{column}{header_row}")  # type: ignore[misc]


def reliability_facts(report: AgreementSheet, gold: pd.DataFrame) -> list[tuple[str, str]]:
    """The gold's reliability (Spearman-Brown from interval alpha at the mean ratings per
    rated item) and the raters per item it would take for 0.8 and 0.9."""
    alpha = report.figures.figures["alpha"].get("interval")
    counts = gold["n_ratings"].to_numpy()
    rated = counts[counts > 0]
    if alpha is None or not rated.size:
        return [("gold reliability", "undefined (too few ratings)")]
    k = float(rated.mean())
    value = gold_reliability(alpha, k)
    needed = {t: raters_needed(alpha, t) for t in (0.8, 0.9)}
    return [("gold reliability", f"{value:.3f}: Spearman-Brown from interval alpha "
                                 f"{alpha:.3f} at {k:.2f} ratings per item"),
            ("raters needed", ", ".join(f"{n if n is not None else 'never'} for {t}"
                                        for t, n in needed.items()))]


def write_agreement_sheet(book: Workbook, gold: pd.DataFrame, scale: Scale, title: str = "",
                          threshold: float | FlagRule = 1.0,
                          excluded: Sequence[str] = ()) -> None:
    """Sheet `agreement`: the report a committee reads first."""
    rule = threshold if isinstance(threshold, FlagRule) else FlagRule("range", threshold)
    report = AgreementSheet(book, gold, scale)
    maker = report.maker
    report.append([maker.styled("Agreement and gold report" + (f": {title}" if title else ""),
                                font=TITLE_FONT)])
    facts = [
        ("scale", f"{scale.name} ({fmt(scale.low)}-{fmt(scale.high)}, step {fmt(scale.step)})"),
        ("flag rule", rule.describe()),
        ("raters counted", ", ".join(report.raters) or "(none)"),
        ("raters excluded", ", ".join(excluded) or "(none)"),
        ("written", dt.datetime.now().replace(microsecond=0).isoformat(sep=" ")),
    ]
    for label, text in facts + reliability_facts(report, gold):
        report.append([maker.text(label), maker.text(text)])
    report.section("Krippendorff's alpha (interval) by dataset")
    _alpha_rows(report, gold["flagged"].to_numpy(dtype=bool),
                gold["adjudicated"].to_numpy(dtype=bool))
    report.section("Pearson r between raters (items both rated)")
    _pearson_rows(report)
    report.section("Each rater against the mean of the others (Pearson r)")
    _vs_rest_rows(report)
    report.section("Rating distribution (number of ratings per score)")
    header_row, last_row = _distribution_rows(report)
    _chart(report, header_row, last_row)


OVER_TIME_SHEET = "agreement over time"


def write_over_time_sheet(book: Workbook, ratings: pd.DataFrame,
                          excluded: Sequence[str] = ()) -> None:
    """Sheet `agreement over time`: alpha with its interval, and each rater's r against the
    rest, after every N ratings in the order they were given; a line chart of both."""
    from simrate.core.agreement.reports.over_time import agreement_over_time, drifting

    step, points = agreement_over_time(ratings, excluded=tuple(excluded))
    raters = sorted({r for p in points for r in p.vs_rest})
    sheet = new_sheet(book, OVER_TIME_SHEET, [12, 20, 10, 10, 10] + [12] * len(raters))
    maker = CellMaker(sheet)

    def number(value: float | None) -> object:
        if value is None or value != value:
            return None
        return maker.styled(float(value), number_format=NUMBER_FORMAT)

    sheet.append(maker.header(["ratings", "last rating at", "alpha", "95% low", "95% high",
                               *[f"r {name} vs rest" for name in raters]]))
    for point in points:
        at = dt.datetime.fromtimestamp(point.at).replace(microsecond=0)
        sheet.append([point.ratings, maker.styled(at, number_format="yyyy-mm-dd hh:mm:ss"),
                      number(point.alpha), number(point.low), number(point.high),
                      *[number(point.vs_rest.get(name)) for name in raters]])
    sheet.append([])
    sheet.append([maker.text(f"Every {step:,} ratings in the order they were given (each "
                             "counted at its latest value); alpha at the interval level, its "
                             "interval from 200 unit resamples; r vs rest: Pearson r of a "
                             "rater's scores against the mean of the others' on the same "
                             "items.")])
    falling = drifting(points)
    for name, (best, latest) in sorted(falling.items()):
        sheet.append([maker.text(f"{name} is drifting: r vs rest fell from {best:.2f} to "
                                 f"{latest:.2f}, more than the others' did")])
    if points:
        _over_time_chart(sheet, len(points) + 1, len(raters))


def _over_time_chart(sheet, last: int, n_raters: int) -> None:
    """A line chart of alpha, its interval and each rater's r, beside the sheet's table."""
    from openpyxl.chart import LineChart

    chart = LineChart()
    chart.title = "Agreement after every N ratings"
    chart.y_axis.title = "alpha, r"
    chart.x_axis.title = "ratings given"
    chart.height, chart.width = 9, 18
    chart.add_data(Reference(sheet, min_col=3, max_col=5 + n_raters, min_row=1,
                             max_row=last), titles_from_data=True)
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=last))
    sheet.add_chart(chart, f"{get_column_letter(7 + n_raters)}2")
