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
