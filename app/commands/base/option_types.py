"""Types of command-line option values, each the argparse face of one rule of
app/core/data/values.py (the rules environment variables and stored settings follow too)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from simrate.core.base.errors import SimrateError
from simrate.core.data import values


def login_name() -> str:
    """The user's login name, recorded as who made a change when --by is not given."""
    import getpass  # only when a change is recorded without --by

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return ""



def _option_type(rule: Callable[[str], object], name: str) -> Callable[[str], object]:
    """An argparse type from a rule; argparse adds the option's name to the message."""
    def convert(text: str) -> object:
        try:
            return rule(text)
        except SimrateError as exc:
            message = exc.message.removeprefix("the value: ").removeprefix("the value ")
            raise argparse.ArgumentTypeError(message) from None
    convert.__name__ = name
    return convert


#: A whole number within 64 bits, either sign.
whole_number = _option_type(lambda text: values.whole(text, "the value"), "whole_number")
#: A count, a seed, a size: a whole number, 0 or more.
count = _option_type(lambda text: values.whole(text, "the value", minimum=0), "count")
#: A finite number (nan and inf are refused where argparse reads them).
finite_float = _option_type(lambda text: values.finite(text, "the value"), "finite_float")
#: A text kept in a project or written into a file (a title, a note, a code, a licence):
#: one line, no control, escape or invisible character, at most values.TEXT_MAX characters.
text_option = _option_type(lambda text: values.stored_text(text, "the value"), "text_option")


def finite_between(low: float, high: float, unit: str) -> Callable[[str], object]:
    """A finite number from `low` to `high` `unit` (minutes, seconds): 4.9e-324 minutes or
    1e308 seconds is no time a person means, and is refused in the option's line."""
    def rule(text: str) -> float:
        value = values.finite(text, "the value")
        if not low <= value <= high:
            raise SimrateError(f"must be from {low:,.10g} to {high:,.10g} {unit}, "
                               f"not {values.quoted(text)}")
        return value
    return _option_type(rule, "finite_float")


#: Minutes a worker holds a task (crowd study --lease-minutes): a minute to ten weeks.
lease_minutes = finite_between(1, 100_000, "minutes")
#: Seconds a command keeps trying an unreachable or full hub (--wait): up to a day.
wait_seconds = finite_between(0, 86_400, "seconds")
#: Study starts one address may make per minute (serve --starts-per-ip).
starts_per_minute = finite_between(1, 1_000_000, "starts a minute")
#: A host to listen on or connect to.
host_name = _option_type(lambda text: values.host_name(text, "the value"), "host_name")
#: An http: or https: address a person is sent to.
web_address = _option_type(lambda text: values.web_address(text, "the value"), "web_address")


#: Options that name raters (people, crowd workers, machine raters, organizers).
RATER_OPTIONS = (("annotator", "--annotator"), ("machine", "--machine"), ("by", "--by"))
#: Options that give several rater names.
RATER_LISTS = (("exclude", "--exclude"), ("include", "--include"), ("annotators", "NAME"))


def check_rater_options(args: argparse.Namespace) -> None:
    """One rule for every option that names a rater (core/base/names.py): each is put in NFC,
    or SimrateError (one line) says why it cannot be a name. `team ... NAME` names a
    person; `agreement --by` is a grouping, not a name."""
    from simrate.core.base.names import check_rater_name

    command = getattr(args, "command", None)
    for attr, option in RATER_OPTIONS:
        value = getattr(args, attr, None)
        if isinstance(value, str) and not (attr == "by" and command == "agreement"):
            setattr(args, attr, check_rater_name(value, f"{option} name"))
    for attr, option in RATER_LISTS:
        given = getattr(args, attr, None)
        if isinstance(given, list):
            setattr(args, attr, [check_rater_name(v, f"{option} name") for v in given])
    if command == "team" and isinstance(getattr(args, "name", None), str):
        args.name = check_rater_name(args.name, "person's name")


def _service(text: str) -> str:
    text = text.strip()
    return "direct" if text.lower() == "direct" else values.web_address(text, "the value")


#: The address of a sync service (`simrate serve` on a hub replica), or `direct` for none.
service_address = _option_type(_service, "service_address")
