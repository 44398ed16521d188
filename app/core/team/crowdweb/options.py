"""A web study's further settings (`crowd study --completion-code ... --consent FILE.md`):
checked here, once, for both the file and the hub (whose `web_set_study` checks them again).

They are kept as one JSON text (`web_studies.options`), so a setting added later needs no
new column: `partial_code`, `code_per_task`, `prolific_study`, `instructions`, `consent`,
`frame_from`, `redirect_seconds`. The requester's completion code is the study's `code`.
"""

from __future__ import annotations

import json
import re

from simrate.core.base.errors import SimrateError
from simrate.core.data.values import web_address

CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
PLATFORM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")
URL = re.compile(r"https?://[^\s<>\"'`\\]{1,2000}")
MAX_TEXT = 50_000
PLACEHOLDERS = ("{code}", "{worker}", "{session}")


def check_code(flag: str, code: str) -> str:
    if not CODE.fullmatch(code or ""):
        raise SimrateError(f"{flag} may hold only letters, digits, '_' and '-' (1 to 64), "
                           f"not {str(code)[:40]!r}")
    return code


def check_url(url: str) -> str:
    """The completion URL as given (stripped): http(s) only; {code}, {worker}, {session}
    are its only placeholders."""
    url = url.strip()
    if url and not URL.fullmatch(url):
        raise SimrateError(f"--completion-url must be an http:// or https:// address, "
                           f"not {url[:60]!r}")
    rest = url
    for name in PLACEHOLDERS:
        rest = rest.replace(name, "")
    if "{" in rest or "}" in rest:
        raise SimrateError("--completion-url may hold only the placeholders {code}, {worker} "
                           "and {session}")
    filled = url
    for name in PLACEHOLDERS:
        filled = filled.replace(name, "x")
    web_address(filled, "--completion-url")  # the rule of every address a person is sent to
    return url


def check_text(flag: str, text: str) -> str:
    if len(text) > MAX_TEXT:
        raise SimrateError(f"{flag}: the text is longer than {MAX_TEXT} characters")
    if "\x00" in text:
        raise SimrateError(f"{flag}: the file is not text")
    return text.replace("\r\n", "\n")


def checked_options(given: dict) -> dict:
    """The options given (None: leave as is), each checked; SimrateError for a bad one."""
    out: dict = {}
    for key, value in given.items():
        if value is None:
            continue
        if key == "partial_code":
            out[key] = value and check_code("--partial-code", value)
        elif key == "prolific_study":
            if value and not PLATFORM_ID.fullmatch(value):
                raise SimrateError("--prolific-study may hold only letters, digits, '_' and "
                                   f"'-', not {value[:40]!r}")
            out[key] = value
        elif key in ("instructions", "consent"):
            out[key] = check_text(f"--{key}", value)
        elif key == "frame_from":
            if value and not ORIGIN.fullmatch(value):
                raise SimrateError("--allow-frame-from must be an origin such as "
                                   f"https://www.mturk.com, not {value[:60]!r}")
            out[key] = value
        elif key == "redirect_seconds":
            if not (isinstance(value, int) and 0 <= value <= 600):
                raise SimrateError(f"--redirect-seconds must be 0 to 600, not {value}")
            out[key] = value
        elif key == "code_per_task":
            out[key] = bool(value)
        else:
            raise SimrateError(f"no such study setting: {key}")
    return out


def merged(old: dict, given: dict) -> dict:
    """The old options with the given ones over them; empty values are dropped."""
    return {k: v for k, v in {**old, **checked_options(given)}.items() if v not in ("", False, 0)}


def options_text(options: dict) -> str:
    return json.dumps(options, sort_keys=True, ensure_ascii=False)


def completion_link(url: str, code: str, worker: str, session: str) -> str:
    """The completion URL with {code}, {worker} and {session} filled in (URL-encoded)."""
    from urllib.parse import quote

    for name, value in (("{code}", code), ("{worker}", worker), ("{session}", session)):
        url = url.replace(name, quote(value, safe=""))
    return url
