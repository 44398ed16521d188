"""simrate machine PROJECT [--epsilon E] [--json]"""

from __future__ import annotations

import argparse
import json

from simrate.commands.base.option_types import finite_float
from simrate.core.base.errors import SimrateError
from simrate.core.machine.alt_test import DEFAULT_EPSILON
from simrate.core.machine.report import machine_report
from simrate.core.project import Project


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render(report: dict) -> list[str]:
    """The report as text: one block per machine rater."""
    if not report["machines"]:
        return ["no machine raters (add one: simrate import PROJECT FILE --machine NAME)"]
    lines = []
    for name, entry in report["machines"].items():
        test = entry["alt_test"]
        verdict = ("not testable (no human with enough items)" if test["winning_rate"] is None
                   else "PASSED" if test["passed"] else "FAILED")
        lines += [f"machine {name}: alt-test {verdict}",
                  f"  winning rate {_f(test['winning_rate'])}, advantage probability rho "
                  f"{_f(test['advantage_probability'])}, epsilon {test['epsilon']:g}",
                  f"  alpha (interval) humans {_f(entry['alpha_without'])}, with {name} "
                  f"{_f(entry['alpha_with'])}",
                  f"  Pearson with the humans' mean {_f(entry['pearson_vs_humans'])}",
                  "  human        Pearson  items  p-value  rejected"]
        for human, result in test["humans"].items():
            p = "-" if result["p_value"] is None else f"{result['p_value']:.4f}"
            lines.append(f"  {human:<12} {_f(entry['pearson'].get(human)):>7}  "
                         f"{result['instances']:>5}  {p:>7}  {'yes' if result['rejected'] else 'no'}")
        lines.append("")
    return lines[:-1]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate machine`."""
    p = sub.add_parser("machine", help="machine raters against the humans (the alt-test)")
    p.add_argument("project")
    p.add_argument("--epsilon", type=finite_float, default=None, metavar="E",
                   help="cost-benefit margin of the alt-test (0.2)")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Print each machine rater's figures and alt-test verdict."""
    epsilon = DEFAULT_EPSILON if args.epsilon is None else args.epsilon
    if not 0.0 <= epsilon < 1.0:
        raise SimrateError(f"--epsilon must be between 0 and 1, not {epsilon}")
    with Project.open(args.project) as project:
        report = machine_report(project, epsilon)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, allow_nan=False))
    else:
        print("\n".join(render(report)))
    return 0
