"""The STS 2012 rule as one action: exclude the workers whose Pearson with check items is low.

STS 2012 dropped crowd workers whose correlation with the organizers' known scores fell below
0.5. `exclude_careless` applies that rule to every person (never a machine rater) not yet
excluded, in one logged transaction; `restore_careless` takes back the workers the last such
action excluded. A worker who gave the same score to check items of different known scores
has no Pearson, and is excluded too: that is the plainest sign of not reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD, annotator_report
from simrate.core.team.teamdb import change_entries

RULE = "check_pearson"


@dataclass(frozen=True)
class RuleResult:
    """Who the rule excluded (or restored), and why each was."""

    annotators: list[str]
    reasons: dict[str, str]
    threshold: float


def careless(project: Project, threshold: float = DEFAULT_CHECK_THRESHOLD,
             min_checks: int = 2) -> dict[str, str]:
    """{annotator: reason} of the people the check-item rule would exclude now."""
    machines = set(project.roster.machines())
    found = {}
    for entry in annotator_report(project, threshold=threshold):
        name = entry["annotator"]
        if name in machines or entry["excluded"]:
            continue
        reason = careless_reason(entry, threshold, min_checks)
        if reason:
            found[name] = reason
    return found


def careless_reason(entry: dict, threshold: float = DEFAULT_CHECK_THRESHOLD,
                    min_checks: int = 2) -> str | None:
    """Why the rule names this row of the annotator report (quality.annotator_report),
    or None: check Pearson below `threshold`, or one score for check items of different
    known scores, over at least `min_checks` checks."""
    r = entry["check_pearson"]
    if entry["checks"] < min_checks:
        return None
    if r is not None and r < threshold:
        return f"check Pearson {r:.2f} below {threshold:g}"
    if r is None and entry["flag_reason"] == "the same score on every check item":
        return str(entry["flag_reason"])
    return None


def exclude_careless(project: Project, threshold: float = DEFAULT_CHECK_THRESHOLD,
                     by: str = "") -> RuleResult:
    """Exclude every careless worker at once; one logged, reversible action."""
    found = careless(project, threshold)
    if found:
        project.roster.set_excluded(list(found), True, by=by,
                                  rule={"rule": RULE, "threshold": threshold})
    return RuleResult(list(found), found, threshold)


def last_rule(project: Project) -> dict | None:
    """The newest exclude_rule entry of the change log that excluded someone."""
    for entry in change_entries(project, "exclude_rule"):
        if entry.get("rule") == RULE:
            return entry if entry.get("excluded") else None
    return None


def restore_careless(project: Project, by: str = "") -> RuleResult:
    """Take back the workers the last exclude_careless excluded (those still excluded)."""
    entry = last_rule(project)
    if entry is None:
        raise SimrateError("no exclusion by the check-item rule to take back", project.path)
    still = set(project.excluded_annotators())
    names = [a for a in entry["annotators"] if a in still]
    if names:
        project.roster.set_excluded(names, False, by=by,
                                  rule={"rule": RULE, "threshold": entry["threshold"]})
    return RuleResult(names, {}, float(entry["threshold"]))
