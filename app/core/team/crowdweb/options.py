"""A web study's further settings (`crowd study --completion-code ... --consent FILE.md`):
checked here, once, for both the file and the hub (whose `web_set_study` checks them again).

They are kept as one JSON text (`web_studies.options`), so a setting added later needs no
new column: `partial_code`, `code_per_task`, `prolific_study`, `instructions`, `consent`,
`frame_from`, `redirect_seconds`, `allow_workers`, `block_workers` (crowdweb/access.py), `failed_checks` (attention.py), `training`,
`pass_rule`, `screen_out_code` (training.py). The
requester's completion code is the study's `code`.
What the hub checks too (patterns, lengths, ranges, their messages) is a rule of
simrate.core.base.rules (STUDY_RULES), rendered into the hub's `web_check_study`.
"""

from __future__ import annotations

import json

from simrate.core.base import rules
from simrate.core.base.errors import SimrateError
from simrate.core.data.values import web_address
from simrate.core.team.crowdweb.attention import MOST_WARNINGS
from simrate.core.team.crowdweb.training import MOST_TRAINING, parse_rule

PLACEHOLDERS = ("{code}", "{worker}", "{session}")
#: The shared rules of a study's settings and options, by the name of what they check.
RULES = {rule.value: rule for rule in rules.STUDY_RULES}


def check_rule(name: str, value: object) -> None:
    """SimrateError (the hub's words: rules.STUDY_REFUSED and the rule's message) when
    `value` breaks the shared rule of the setting `name`."""
    if not RULES[name].holds(value):
        raise SimrateError(rules.STUDY_REFUSED + RULES[name].message)


def check_code(flag: str, code: str) -> str:
    """The code as given; SimrateError in the hub's words when it is no code."""
    check_rule("code", code)
    return code


def check_url(url: str) -> str:
    """The completion URL as given (stripped): http(s) only; {code}, {worker}, {session}
    are its only placeholders."""
    url = url.strip()
    check_rule("completion_url", url)
    if not url:  # none: the worker is shown the code alone
        return url
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
    """The text of a file given as an option (line ends as LF); SimrateError when it is
    too long (the shared rule) or no text."""
    check_rule(flag.removeprefix("--"), text)
    if "\x00" in text:
        raise SimrateError(f"{flag}: the file is not text")
    return text.replace("\r\n", "\n")


def checked_options(given: dict) -> dict:
    """The options given (None: leave as is), each checked; SimrateError for a bad one."""
    out: dict = {}
    for key, value in given.items():
        if value is None:
            continue
        if key in ("instructions", "consent"):
            out[key] = check_text(f"--{key}", value)
        elif key in ("partial_code", "prolific_study", "frame_from", "redirect_seconds"):
            if value != "":  # empty: the setting taken away
                check_rule(key, value)
            out[key] = value
        elif key == "code_per_task":
            out[key] = bool(value)
        elif key == "training":  # crowdweb/training.py
            if type(value) is not int or not 0 <= value <= MOST_TRAINING:
                raise SimrateError(f"--training: a whole number from 0 (none) to "
                                   f"{MOST_TRAINING}, not {value!r:.20}")
            out[key] = value
        elif key == "pass_rule":
            if value != "":
                parse_rule(value)
            out[key] = str(value).strip().lower().replace(" ", "")
        elif key == "screen_out_code":
            if value != "":
                check_rule("code", value)
            out[key] = value
        elif key == "failed_checks":  # crowdweb/attention.py
            if type(value) is not int or not 0 <= value <= MOST_WARNINGS:
                raise SimrateError(f"--failed-checks: a whole number from 0 (off) to "
                                   f"{MOST_WARNINGS}, not {value!r:.20}")
            out[key] = value
        elif key in ("allow_workers", "block_workers"):  # keys of crowdweb/access.py
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise SimrateError(f"--{key.replace('_', '-')}: not a list of worker ids")
            out[key] = value or ""  # an empty list takes the list away
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
