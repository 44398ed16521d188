"""Types of command-line option values: numbers written in ASCII digits only (int() and
float() alone also read fullwidth and Arabic-Indic digits, `1_000` and padded text), and
finite (argparse would take nan and inf)."""

from __future__ import annotations

import argparse


def whole_number(text: str) -> int:
    """A whole-number option: ASCII digits with an optional sign (int() alone also reads
    fullwidth and Arabic-Indic digits, `1_000` and surrounding spaces)."""
    if not (text.isascii() and text.lstrip("+-").isdigit() and len(text) - len(
            text.lstrip("+-")) <= 1):
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}")
    return int(text)


def finite_float(text: str) -> float:
    """A number option: finite (nan and inf are refused where argparse reads them)."""
    try:
        if not text.isascii() or "_" in text or text != text.strip():
            raise ValueError(text)  # float() reads fullwidth digits, 1_0 and " 1" too
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a finite number: {text[:40]!r}")
    return value


#: Options that name raters (people, crowd workers, machine raters, organizers).
RATER_OPTIONS = (("annotator", "--annotator"), ("machine", "--machine"), ("by", "--by"))
#: Options that give several rater names.
RATER_LISTS = (("exclude", "--exclude"), ("include", "--include"), ("annotators", "NAME"))


def check_rater_options(args: argparse.Namespace) -> None:
    """One rule for every option that names a rater (core/names.py): each is put in NFC,
    or SimrateError (one line) says why it cannot be a name. `team ... NAME` names a
    person; `agreement --by` is a grouping, not a name."""
    from simrate.core.names import check_rater_name

    command = getattr(args, "command", None)
    for attr, option in RATER_OPTIONS:
        value = getattr(args, attr, None)
        if isinstance(value, str) and not (attr == "by" and command == "agreement"):
            setattr(args, attr, check_rater_name(value, f"{option} name"))
    for attr, option in RATER_LISTS:
        values = getattr(args, attr, None)
        if isinstance(values, list):
            setattr(args, attr, [check_rater_name(v, f"{option} name") for v in values])
    if command == "team" and isinstance(getattr(args, "name", None), str):
        args.name = check_rater_name(args.name, "person's name")
