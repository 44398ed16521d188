"""The Responsible-AI fields (`rai:`, Croissant's RAI vocabulary) of a dataset folder's
croissant.json, worded from what the export knows: how many counted ratings each item has,
who rated and where, the scale and the flag rule the raters and reviewers followed, the
agreement and review record, the dates of the first and last rating, the machine raters
and what the folder leaves out to protect people. Every figure is one the card shows too.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Where each kind of rater gave its scores.
PLATFORMS = {
    "person": "simrate: its rating window or a web study page it serves",
    "crowd": "a crowd-work platform (the workers' results files imported into simrate)",
    "machine": "a system's output file of scores, imported into simrate",
}
COLLECTION_TYPES = {"person": "Manual human curation", "crowd": "Crowdsourcing",
                    "machine": "Machine annotation"}


def _f(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _protocol(facts: Mapping) -> list[str]:
    scale = facts["scale"]
    lines = [f"Each pair of texts is scored for graded semantic similarity on the scale "
             f"{scale['title'] or scale['name']}, from {scale['low']:g} to {scale['high']:g} "
             f"in steps of {scale['step']:g}."]
    lines += [f"{p['value']:g} ({p['label']}): {p['guideline']}".rstrip(": ")
              for p in scale["points"]]
    rule = facts["review"].get("rule")
    if rule:
        lines.append(f"Flag rule: {rule['description']}. Items the spread flags wait for an "
                     "adjudicator's verdict, which becomes their gold score.")
    return lines


def _analysis(facts: Mapping) -> list[str]:
    every, review = facts["agreement"]["figures"], facts["review"]
    level = facts["agreement"]["level"]
    ci = (every.get("ci95") or {}).get(level)
    lines = [f"Krippendorff's alpha ({level}) over {every['items']} items and "
             f"{len(every['annotators'])} counted raters: {_f(every['alpha'].get(level))}"
             + (f" (95% bootstrap CI {_f(ci[0])} to {_f(ci[1])})" if ci else "")
             + f"; {_f((every.get('alpha_unadjudicated') or {}).get(level))} over the items "
             "neither flagged nor adjudicated.",
             f"Review: {review['flagged']} of {review['items']} items flagged by the rule, "
             f"{review['flagged_adjudicated']} of them adjudicated; {review['adjudicated']} "
             "items adjudicated in all. Gold: the verdict, else the "
             + ", ".join(f"{k} for {v}" for k, v in sorted(review["resolution"].items()))
             + " (the gold file's `resolution`)."]
    excluded = facts["exclusions"]["excluded"]
    lines.append(f"Excluded raters, counted in neither gold nor agreement: "
                 f"{', '.join(e['rater'] for e in excluded)}." if excluded
                 else "No rater is excluded.")
    return lines


def _machines(facts: Mapping) -> list[str]:
    out = []
    for name, entry in facts["machines"]["machines"].items():
        test = entry["alt_test"]
        verdict = ("not testable" if test["winning_rate"] is None
                   else "passed" if test["passed"] else "failed")
        out.append(f"{name}: a machine rater whose scores are in `ratings` (rater_kind "
                   f"machine) and count in no gold; alternative annotator test {verdict} "
                   f"(winning rate {_f(test['winning_rate'])}, epsilon {test['epsilon']:g}).")
    return out


def rai_fields(facts: Mapping) -> dict:
    """The `rai:` properties of the dataset, for croissant.json."""
    kinds = [r["kind"] for r in facts["raters"]]
    per_item = facts["annotations"]
    fields: dict = {
        "rai:dataCollection": (
            f"{facts['items']} text pairs from source files imported into simrate, each "
            "scored by raters: " + ", ".join(f"{r['raters']} {r['kind']} rater(s) giving "
                                             f"{r['scores']} scores" for r in facts["raters"])
            + "." if facts["raters"] else f"{facts['items']} text pairs, not yet rated."),
        "rai:dataCollectionType": [COLLECTION_TYPES[k] for k in kinds] or ["Other"],
        "rai:dataAnnotationProtocol": _protocol(facts),
        "rai:dataAnnotationPlatform": [PLATFORMS[k] for k in kinds] or ["simrate"],
        "rai:dataAnnotationAnalysis": _analysis(facts),
        "rai:annotationsPerItem": (
            f"{per_item['mean']:.2f} counted ratings per item on average (from "
            f"{per_item['min']} to {per_item['max']}); machine raters' and excluded raters' "
            "ratings are in `ratings` but not counted."),
        "rai:personalSensitiveInformation": _privacy(facts),
    }
    if facts.get("time_frame"):
        fields["rai:dataCollectionTimeFrame"] = list(facts["time_frame"])
    if facts["machines"]["machines"]:
        fields["rai:machineAnnotationTools"] = _machines(facts)
    return fields


def _privacy(facts: Mapping) -> str:
    said = ("Raters appear under pseudonyms (rater-NN, crowd-NNNN, machine-NN); no name, "
            "login or worker id is published." if facts["pseudonyms"] else
            "Raters appear under their names (the organizer chose to publish them).")
    said += "" if facts["with_notes"] else " Raters' and adjudicators' notes are left out."
    left_out = facts.get("left_out") or []
    return said + (f" {len(left_out)} source column(s) or values were left out (listed in "
                   "README.md)." if left_out else "")
