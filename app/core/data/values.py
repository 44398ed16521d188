"""One rule per kind of value a user types, used by every entry point (options, environment
variables, stored settings): whole numbers, finite numbers, host names, URLs and one-line
texts. Each raises SimrateError naming `what` (an option, a variable) and the value, cut
short and quoted with repr, so a hostile value can never make a message long or multi-line.

- Whole numbers: ASCII digits with one optional sign (int() alone also reads fullwidth and
  Arabic-Indic digits, `1_000` and padding), within 64 bits (SQLite's INTEGER, numpy's
  seeds): more digits than that are refused before Python converts them (past 4,300 digits
  int() itself refuses, with its own words).
- Finite numbers: ASCII, no `_`, no padding; nan and ±inf refused, and so are values past
  what a float holds (1e400 reads as inf).
- Host names: an IP address, or DNS labels of letters, digits and `-` (1-63 characters
  each, 253 in all); `a..b`, a trailing `-`, spaces and control characters are refused
  (Python's IDNA codec raises UnicodeError on them, deep in a connect or a listen).
- URLs: one of the schemes the use allows, a host name as above, no control characters.
"""

from __future__ import annotations

import ipaddress
import math
import re
from urllib.parse import urlsplit

from simrate.core.base.errors import SimrateError, cut

#: The largest whole number any option takes: SQLite's INTEGER and numpy's seeds hold it.
WHOLE_MAX = 2**63 - 1
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
#: Characters no value on one line may hold: C0 and C1 controls, DEL, the Unicode line and
#: paragraph separators, and the invisible format characters (bidi controls, zero widths).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e"
                      "\u2060-\u2064\u2066-\u2069\ufeff]")


def quoted(text: str) -> str:
    """`text` for a message: repr, cut to 40 characters (never a line break)."""
    return cut(repr(text), 40)


def whole(text: str, what: str, minimum: int | None = None) -> int:
    """`text` as a whole number within 64 bits (and at least `minimum`)."""
    digits = text[1:] if text[:1] in "+-" else text
    if not (text.isascii() and digits.isdigit()):
        raise SimrateError(f"{what}: not a whole number: {quoted(text)}")
    if len(digits) > 40 or len(digits.lstrip("0")) > 19 or abs(int(text)) > WHOLE_MAX:
        raise SimrateError(f"{what}: too large: {quoted(text)} (at most {WHOLE_MAX:,})")
    value = int(text)
    if minimum is not None and value < minimum:
        raise SimrateError(f"{what} must be {minimum} or more, not {quoted(text)}")
    return value


def finite(text: str, what: str, minimum: float | None = None) -> float:
    """`text` as a finite number (and at least `minimum`)."""
    try:
        if not text.isascii() or "_" in text or text != text.strip():
            raise ValueError(text)  # float() reads fullwidth digits, 1_0 and " 1" too
        value = float(text)
    except ValueError:
        raise SimrateError(f"{what}: not a number: {quoted(text)}") from None
    if not math.isfinite(value):
        raise SimrateError(f"{what}: not a finite number: {quoted(text)}")
    if minimum is not None and value < minimum:
        raise SimrateError(f"{what} must be {minimum:g} or more, not {quoted(text)}")
    return value


def one_line_text(text: str, what: str) -> str:
    """`text`, refused when it holds a control, line-breaking or invisible character."""
    found = _CONTROL.search(text)
    if found:
        raise SimrateError(f"{what} holds the control or invisible character "
                           f"U+{ord(found.group()):04X}: {quoted(text)}")
    return text


#: The longest text a user gives to be stored or written (a title, a note, a code).
TEXT_MAX = 1000


def stored_text(text: str, what: str, limit: int = TEXT_MAX) -> str:
    """`text` to keep in a project or write into a file (a title, a note, a licence): one
    line without control, escape or invisible characters, UTF-8, at most `limit` characters."""
    one_line_text(text, what)
    if any("\ud800" <= c <= "\udfff" for c in text):
        raise SimrateError(f"{what}: not UTF-8 text: {quoted(text)}")
    if len(text) > limit:
        raise SimrateError(f"{what}: too long: {len(text):,} characters (at most {limit:,})")
    return text


def escaped(text: str) -> str:
    """`text` with its control and invisible characters escaped (`\\x1b`): a title stored
    before they were refused, shown or written without acting on a terminal or a page."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def host_name(text: str, what: str) -> str:
    """`text` as a host to connect to or listen on: an IP address or a DNS name."""
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        ipaddress.ip_address(bare)
        return text
    except ValueError:
        pass
    name = text[:-1] if text.endswith(".") else text  # the root's dot is allowed
    if not name or len(name) > 253 or not all(_LABEL.match(p) for p in name.split(".")):
        raise SimrateError(f"{what}: not a host name: {quoted(text)} (letters, digits and "
                           "'-' between dots, or an IP address)")
    return text


def url(text: str, what: str, schemes: tuple[str, ...]) -> str:
    """`text` as a URL of one of `schemes` with a valid host (javascript:, file:, data: and
    the like are refused unless a use names them)."""
    one_line_text(text, what)
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        raise SimrateError(f"{what}: not a URL: {quoted(text)}") from None
    if parts.scheme.lower() not in schemes:
        allowed = " or ".join(f"{s}:" for s in schemes)
        raise SimrateError(f"{what} must be an address of {allowed}, not {quoted(text)}")
    if not parts.hostname:
        raise SimrateError(f"{what}: the URL names no host: {quoted(text)}")
    if parts.password is not None:  # quoted without it: a password is never echoed
        raise SimrateError(f"{what}: the URL holds a password; give it without the user "
                           "and password")
    host_name(parts.hostname, what)
    return text


def web_address(text: str, what: str) -> str:
    """`text` as an http: or https: address to send a person to (no javascript:, file:,
    data:, no control characters): `team invite --base-url`, `crowd study --completion-url`."""
    return url(text, what, ("http", "https"))
