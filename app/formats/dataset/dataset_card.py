"""README.md of a dataset folder: the data card, in the Hugging Face Hub's layout.

YAML front matter (configs with their data files and split, dataset_info features, licence,
language, task category, size category, pretty name), then the card itself: the files and
fields, the scale with its labels, step and guidelines, the raters by kind, agreement, the
review record, exclusions and check items, and the machine raters' alt-test. Tables show
figures to three decimals; the section "Figures as JSON" holds them exactly, as the commands
named there print them. YAML is written by hand (strings JSON-quoted, which YAML reads as
they are), so no YAML library is needed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from simrate.formats.dataset.dataset_files import TYPES, Files, features
from simrate.formats.dataset.dataset_previous import AUTHOR_END, AUTHOR_HINT, AUTHOR_START

LEVEL_ORDER = ("interval", "ordinal", "ratio", "nominal")
#: Above this many raters the card lists Pearson against the rest instead of the matrix.
MATRIX_RATERS = 12


#: Characters a YAML reader refuses even in quotes, or takes as line breaks (U+0085,
#: U+2028, U+2029): written as escapes in a double-quoted scalar.
_NOT_YAML_TEXT = re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd"
                            "\U00010000-\U0010ffff]")


def _q(text: object) -> str:
    """A YAML scalar: JSON-quoted text (YAML's double-quoted style reads it the same), with
    the characters YAML would refuse or break lines at escaped."""
    return _NOT_YAML_TEXT.sub(lambda m: f"\\u{ord(m.group()):04x}",
                              json.dumps(str(text), ensure_ascii=False))


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cell(text: object) -> str:
    """Text for a Markdown table cell: no line breaks, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def _license_lines(licence: str) -> list[str]:
    """The Hub's `license`: one SPDX id in lower case; an expression is `other`, spelled
    out in `license_details`."""
    if " " not in licence:
        return [f"license: {_q(licence.lower())}"]
    return ['license: "other"', f"license_details: {_q(licence)}"]


def _license_sentence(licence: str) -> list[str]:
    if licence == "unknown":
        return ["Licence: not stated.", ""]
    if licence == "other":
        return ["Licence: not an SPDX licence (ask the authors).", ""]
    return [f"Licence: `{licence}` (SPDX).", ""]


#: The Hub's annotations_creators for each kind of rater.
CREATORS = {"person": "expert-generated", "crowd": "crowdsourced",
            "machine": "machine-generated"}


def front_matter(facts: Mapping, files: Files) -> list[str]:
    """The YAML block the Hub and `datasets` read."""
    creators = [CREATORS[r["kind"]] for r in facts["raters"]] or ["no-annotation"]
    lines = ["---", f"pretty_name: {_q(facts['title'])}",
             *_license_lines(facts["license"]),
             "language:", f"- {_q(facts['language'])}",
             "annotations_creators:", *[f"- {c}" for c in creators],
             "source_datasets:", "- original",
             "task_categories:", "- sentence-similarity",
             "size_categories:", f"- {_q(facts['size_category'])}",
             "tags:", "- semantic-textual-similarity", "- inter-annotator-agreement",
             "- simrate", "configs:"]
    for n, (name, (written, _)) in enumerate(files.items()):
        lines += [f"- config_name: {name}", "  data_files:"]
        for split, one in written.items():
            lines += [f"  - split: {_q(split)}", f"    path: {_q(one.path)}"]
        lines += ["  default: true"] if n == 0 else []
    lines.append("dataset_info:")
    for name, (written, fields) in files.items():
        lines += [f"- config_name: {name}", "  features:"]
        for feature in features(fields):
            lines += [f"  - name: {_q(feature['name'])}", f"    dtype: {feature['dtype']}"]
        lines.append("  splits:")
        for split, one in written.items():
            lines += [f"  - name: {_q(split)}", f"    num_bytes: {one.size}",
                      f"    num_examples: {one.rows}"]
        size = sum(one.size for one in written.values())
        lines += [f"  download_size: {size}", f"  dataset_size: {size}"]
    return lines + ["---", ""]


def _files_section(facts: Mapping, files: Files) -> list[str]:
    lines = ["## Files", ""]
    lines += _table(["configuration", "file", "split", "rows"],
                    [[name, f"`{w.path}`", split, f"{w.rows:,}"]
                     for name, (written, _) in files.items() for split, w in written.items()])
    if "ratings" not in files:
        lines += ["", "No ratings yet, so no `ratings` configuration."]
    lines += ["", "JSON Lines (one object per line), readable by `datasets`, pandas and "
              "Croissant (`croissant.json`):", "", "```python", "from datasets import "
              "load_dataset", "", 'gold = load_dataset("path/to/this/folder", "gold")',
              'ratings = load_dataset("path/to/this/folder", "ratings")', "```", ""]
    if facts.get("left_out"):
        lines += ["Left out of this folder (only ids, texts, dataset, genre and reference "
                  "go out unless kept with --keep-column):", ""]
        lines += [f"- `{_cell(entry)}`" for entry in facts["left_out"]] + [""]
    for name, (_, fields) in files.items():
        lines += [f"Fields of `{name}`:", ""]
        lines += _table(["field", "type", "meaning"],
                        [[f"`{f.name}`", TYPES[f.type][0], f.description] for f in fields])
        lines.append("")
    return lines


def _author_section(facts: Mapping) -> list[str]:
    """The author's part between its markers: kept from the last export, else a hint."""
    kept = facts.get("author")
    inside = f"\n{AUTHOR_HINT}\n" if kept is None else kept
    return [AUTHOR_START + inside + AUTHOR_END, ""]


def _citation_section(facts: Mapping) -> list[str]:
    return ["## Citation", "", "```bibtex", facts["bibtex"], "```", ""]


def _scale_section(scale: Mapping) -> list[str]:
    lines = ["## Scale and guidelines", "",
             f"Scale `{scale['name']}` ({scale['title'] or scale['name']}): scores from "
             f"{scale['low']:g} to {scale['high']:g} in steps of {scale['step']:g}.", ""]
    if scale["description"]:
        lines += [scale["description"], ""]
    if scale["points"]:
        lines += _table(["score", "label", "guideline"],
                        [[f"{p['value']:g}", p["label"], p["guideline"]]
                         for p in scale["points"]]) + [""]
    return lines


def _raters_section(facts: Mapping) -> list[str]:
    lines = ["## Raters", ""]
    if facts["raters"]:
        lines += _table(["kind", "raters", "items scored", "scores", "skips"],
                        [[r["kind"], r["raters"], r["items"], r["scores"], r["skips"]]
                         for r in facts["raters"]]) + [""]
    else:
        lines += ["No ratings yet.", ""]
    lines.append("Raters appear under pseudonyms: rater-NN for people, crowd-NNNN for crowd "
                 "workers, machine-NN for machine raters; adjudicators who are not raters as "
                 "adjudicator-NN. Names, logins and platform worker ids are not in this folder."
                 if facts["pseudonyms"] else
                 "Raters appear under their names in the project (exported with "
                 "--keep-rater-names).")
    lines.append("" if facts["with_notes"] else
                 "\nNotes and comments of raters and adjudicators are not included.\n")
    return lines


def _alpha_rows(agreement: Mapping) -> list[list[str]]:
    figures = agreement["figures"]
    levels = [lv for lv in LEVEL_ORDER if lv in figures["alpha"]]
    rows = []
    for level in sorted(levels, key=lambda lv: lv != agreement["level"]):
        ci = figures.get("ci95", {}).get(level)
        rows.append([level + (" (project's level)" if level == agreement["level"] else ""),
                     _f(figures["alpha"][level]),
                     _f(figures.get("alpha_unadjudicated", {}).get(level)),
                     "n/a" if ci is None else f"{ci[0]:.3f} to {ci[1]:.3f}"])
    return rows


def _pearson_lines(every: Mapping) -> list[str]:
    names = every["annotators"]
    if not names:
        return ["No two raters to correlate.", ""]
    rest = every["pearson_vs_rest"]
    if len(names) > MATRIX_RATERS:
        lines = ["Pearson r of each rater against the mean of the others:", ""]
        return lines + _table(["rater", "vs rest"], [[a, _f(rest[a])] for a in names]) + [""]
    rows = [[a] + [_f(every["pearson"][a][b]) for b in names] + [_f(rest[a])] for a in names]
    return ["Pairwise Pearson r (items both rated, at least "
            f"{every.get('min_overlap', 10)} shared) and each rater against the mean of "
            "the others:", ""] + _table(["", *names, "vs rest"], rows) + [""]


def _reliability_lines(every: Mapping) -> list[str]:
    """How reliable the gold is: Spearman-Brown from interval alpha (none when undefined)."""
    gold = every.get("gold_reliability") or {}
    if gold.get("value") is None:
        return []
    ci = gold.get("ci")
    needed = every.get("raters_needed") or {}
    panel = ", ".join(f"{n if n is not None else 'no number'} for {target}"
                      for target, n in needed.items())
    return [f"Reliability of the gold (the mean of {gold['raters_per_item']:g} ratings per "
            f"item, Spearman-Brown from interval alpha): {_f(gold['value'])}"
            + (f" (95% CI {_f(ci[0])} to {_f(ci[1])})" if ci else "")
            + f". Raters per item needed: {panel}.", ""]


def _agreement_section(agreement: Mapping) -> list[str]:
    every = agreement["figures"]
    lines = ["## Agreement", "",
             f"Over {every['items']:,} items, {every['pairable_items']:,} with two or more "
             f"ratings, among {len(every['annotators'])} counted raters (people and crowd "
             "workers who are not excluded; machine raters do not count). Krippendorff's "
             "alpha, over all items and over the items neither flagged nor adjudicated, "
             f"with its 95% bootstrap interval over all items ({agreement['ci_method']}); "
             "the project's level first:", ""]
    lines += _table(["level", "alpha, all items", "alpha, unadjudicated", "95% CI"],
                    _alpha_rows(agreement)) + [""]
    lines += _reliability_lines(every)
    lines += _pearson_lines(every)
    if agreement["reasons"]:
        lines += ["n/a means undefined:", ""]
        lines += [f"- `{key}`: {reason}" for key, reason in sorted(agreement["reasons"].items())]
        lines.append("")
    return lines


def _rule_sentence(review: Mapping) -> str:
    """The flag rule in words (`rule`), or the range rule of older facts (`threshold`)."""
    rule = review.get("rule")
    if rule is None:
        return (f"Flag rule: an item is flagged when two or more counted ratings differ by "
                f"{review['threshold']:g} scale point{'s' * (review['threshold'] != 1)} or "
                "more.")
    return (f"Flag rule: {rule['description']}; the spread is the largest minus the smallest "
            "counted rating, the SD their sample standard deviation. Only items flagged by "
            "the spread wait for a verdict.")


def _review_section(review: Mapping, exclusions: Mapping) -> list[str]:
    lines = ["## Review", "",
             _rule_sentence(review) + " The gold score is the adjudicated score, else "
             "the mean of the counted ratings (or the method the files' `resolution` names).",
             ""]
    rows = [["items", review["items"]], ["flagged by the rule", review["flagged"]],
            ["flagged and adjudicated", review["flagged_adjudicated"]],
            ["adjudicated in all", review["adjudicated"]]]
    rows += [[f"gold settled as `{name}`", count]
             for name, count in sorted(review["resolution"].items())]
    lines += _table(["", "items"], rows) + [""]
    return lines + _exclusion_lines(exclusions)


def _exclusion_lines(exclusions: Mapping) -> list[str]:
    lines = ["## Exclusions and check items", "",
             f"Check items of known score mixed in: {exclusions['check_items']:,}. The "
             "check-item rule flags a rater whose Pearson with the known scores falls below "
             f"{exclusions['check_threshold']:g}; "]
    rule = exclusions["rule"]
    lines[-1] += ("it has not been applied to exclude raters." if rule is None else
                  f"applied with threshold {rule['threshold']:g}, it excluded "
                  f"{', '.join(rule['excluded']) or 'no one still excluded'}.")
    excluded = exclusions["excluded"]
    lines += ["", (f"Excluded raters ({len(excluded)}), whose ratings count in neither gold "
                   "nor agreement: " + ", ".join(
                       f"{e['rater']} ({e['kind']}{', check-item rule' if e['by_rule'] else ''})"
                       for e in excluded) + ".") if excluded else "No rater is excluded.", ""]
    return lines


def _machine_section(machines: Mapping) -> list[str]:
    if not machines["machines"]:
        return []
    lines = ["## Machine raters", "",
             "The alternative annotator test (Calderon, Reichart and Dror, 2025): can a "
             "machine rater take a person's place?", ""]
    rows = []
    for name, entry in machines["machines"].items():
        test = entry["alt_test"]
        verdict = ("not testable" if test["winning_rate"] is None
                   else "passed" if test["passed"] else "failed")
        rows.append([name, verdict, _f(test["winning_rate"]),
                     _f(test["advantage_probability"]), f"{test['epsilon']:g}",
                     _f(entry["pearson_vs_humans"]), _f(entry["alpha_without"]),
                     _f(entry["alpha_with"])])
    return lines + _table(["machine", "alt-test", "winning rate", "advantage rho", "epsilon",
                           "Pearson vs people", "alpha people", "alpha with it"], rows) + [""]


def _json_section(facts: Mapping) -> list[str]:
    agreement, machines = facts["agreement"], facts["machines"]
    figures = {"agreement": agreement["figures"],
               "machines": {"machines": machines["machines"]}}
    commands = [agreement["command"], machines["command"]]
    return ["## Figures as JSON", "",
            "The figures above exactly, as " + " and ".join(f"`{c}`" for c in commands)
            + " print them (raters renamed as in the files):", "",
            "```json", json.dumps(figures, ensure_ascii=False, indent=1), "```", ""]


def card_text(facts: Mapping, files: Files) -> str:
    """The whole README.md."""
    lines = front_matter(facts, files)
    lines += [f"# {_cell(facts['title'])}", "",
              f"A gold standard of graded text-pair similarity written by simrate on "
              f"{facts['date']}: the gold score of each pair (configuration `gold`) and every "
              "individual rating (configuration `ratings`).", ""]
    lines += _license_sentence(facts["license"])
    lines += _author_section(facts)
    lines += _files_section(facts, files)
    lines += _scale_section(facts["scale"])
    lines += _raters_section(facts)
    lines += _agreement_section(facts["agreement"])
    lines += _review_section(facts["review"], facts["exclusions"])
    lines += _machine_section(facts["machines"])
    lines += _citation_section(facts)
    lines += _json_section(facts)
    return "\n".join(lines)
