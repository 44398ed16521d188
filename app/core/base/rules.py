"""Rules that hold twice, in Python (the project file) and in the hub's PL/pgSQL: written
here once, as data. Python checks with them directly; app/hub/schema/rules_sql.py renders
them into the hub's SQL text (patterns and messages as quoted literals), so a change here
changes both, and tests/contract/test_rules.py runs one set of cases against both sides.

- the kinds of raters and how messages name them (one namespace across kinds);
- a web worker's id and a session id (the link's `PROLIFIC_PID` / `worker`, `SESSION_ID`);
- a web study's settings (`crowd study`): its name, its counts, the lease, the
  completion URL and codes, and the further options kept as JSON (crowdweb/options.py);
- what the web page refuses (a message for the worker and its HTTP status);
- the longest rater name;
- what every stored score code keeps (CODE_RULES: on the scale, none when skipped).

Patterns are written in the dialect both engines read alike: ASCII bracket classes, bounds
of at most 255 (PostgreSQL's limit), no look-around; a longer limit is a length rule.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: The longest rater name, in characters (after NFC): names go into one-line listings,
#: headers (`rating:<name>`), login names and file names.
MAX_RATER_CHARS = 64
#: Why a rater name is too long (`what`: rater name, annotator name, ...).
RATER_TOO_LONG = "the {what} has more than {limit} characters ({given} given)"
#: Why a rater name holds a character that cannot be seen (`char`: `U+0009`, or with its
#: Unicode name: `U+200B (ZERO WIDTH SPACE)`).
RATER_HIDDEN = ("the {what} holds {char}, an invisible or control character; names hold "
                "only characters that can be seen")
#: The control characters of ASCII (the hub checks these; the file checks every invisible
#: character: core/base/names.py).
ASCII_CONTROL = r"[\x01-\x1f\x7f]"
#: The characters a rater's key takes as they are, lowered, with runs of spaces as one:
#: printable ASCII. A name made of these alone is keyed without the fold table, by
#: core/base/names.rater_key and by the hub's `simrate.rater_key` (hub/schema/raters.py).
PLAIN_KEY_CHAR = r"[ -~]"
PLAIN_KEY_NAME = PLAIN_KEY_CHAR + "*"
#: The item columns an annotator may see, in the file's words: an annotator's copy
#: carries these (core/team/blind.py), and the hub grants its annotators' role only
#: these columns of `simrate.items` (hub/schema/access.py; `item_id` is its `id`).
ANNOTATOR_ITEM_COLUMNS = ("item_id", "left", "right", "dataset", "genre")

#: The later edit wins: an edit made here is stamped at least this many seconds after the
#: stamp of the value it replaces, so it is the later one even when this clock is behind.
LATER_STAMP_STEP = 0.001

# ------------------------------------------------------------------ kinds of raters
#: The kinds of raters (core/data/store.py names them HUMAN, MACHINE, CROWD).
KINDS = ("human", "machine", "crowd")
#: How each kind of rater is named in messages.
KIND_WORDS = {"human": "a human annotator", "machine": "a machine rater",
              "crowd": "a crowd worker"}
#: What a kind's ratings are called when they cannot go under another kind's name.
KIND_RATINGS = {"human": "people's ratings", "machine": "a machine rater's scores",
                "crowd": "crowd answers"}
#: Ratings of kind `wanted` under the name of a rater of kind `held`: refused, saying so.
KIND_CLASH = "{name} is {held} of this project; {wanted} cannot go under that name"

# ------------------------------------------------------------------ web ids
#: A worker id: a platform's id, an e-mail-like name or a number (64 characters at most,
#: the rater name's limit: a worker becomes a crowd rater of that name).
WORKER_ID = r"[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}"
#: A session id a link carries (anything else is dropped, not refused).
SESSION_ID = r"[A-Za-z0-9_.:-]{0,100}"
#: The longest client address kept for the flood limits (longer ones are cut).
MAX_ADDRESS_CHARS = 64
#: A web study's name: it goes into URLs and file names.
STUDY_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
#: A completion code, a partial code, a platform's study id.
CODE = r"[A-Za-z0-9_-]{1,64}"
#: A frame origin (`--allow-frame-from`): a host name with an optional port, or an
#: IPv6 address in brackets.
ORIGIN = (r"https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?"
          r"|https?://\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")
#: What no address holds: control characters, every white space (the Unicode ones named
#: one by one: PostgreSQL's `\s` follows the database's locale), quotes, angle brackets
#: and backslashes.
NOT_IN_URL = (r"""\x01-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f"""
              r"""\u3000<>"'`\\""")
#: An address a worker is sent to: http(s), without those (the length is a rule of its
#: own: MAX_URL_CHARS).
URL = rf"https?://[^{NOT_IN_URL}]+"
MAX_URL_CHARS = 2000
#: The largest count of a study (items per task, check items, ratings per item).
MAX_COUNT = 100_000
#: Lease minutes lie strictly between 0 and this.
MAX_LEASE_MINUTES = 1e6
#: The shortest study secret (simrate makes 64 hexadecimal digits).
MIN_SECRET_CHARS = 32
#: The longest options text (JSON) and the longest text of one option (instructions).
MAX_OPTIONS_CHARS = 200_000
MAX_OPTION_TEXT = 50_000
#: The longest wait before a finished task's page sends the worker on.
MAX_REDIRECT_SECONDS = 600
#: How a study's settings are refused, before the problem, on both sides.
STUDY_REFUSED = "web study refused: "


def matches(pattern: str, text: object) -> bool:
    """Whether `text` is a string that `pattern` matches whole."""
    return isinstance(text, str) and re.fullmatch(pattern, text) is not None


@dataclass(frozen=True)
class Rule:
    """One check of a web study's settings: the value (a parameter of `web_set_study`, or
    with `option`, a key of its options), what it must be and what is said when not.

    `kind`: `pattern` (the whole text matches; `limit`: most characters; an absent option
    passes), `count` (a whole number from `low` to `high`), `minutes` (a finite number
    strictly between 0 and `high`), `longer` (at least `low` characters), `shorter` (at
    most `high` characters; absent passes)."""

    value: str
    kind: str
    message: str
    pattern: str = ""
    low: float = 0
    high: float = 0
    option: bool = False
    empty_ok: bool = False

    def holds(self, value: object) -> bool:
        """Whether `value` keeps the rule (None for an option: not given)."""
        if self.option and value is None:
            return True
        if self.kind == "pattern":
            if not isinstance(value, str):
                return False
            return (self.empty_ok and value == "") or (
                matches(self.pattern, value) and (not self.high or len(value) <= self.high))
        if self.kind == "count":
            return type(value) is int and self.low <= value <= self.high
        if self.kind == "minutes":
            return isinstance(value, (int, float)) and not isinstance(value, bool) and \
                math.isfinite(value) and 0 < value < self.high
        if self.kind == "longer":
            return isinstance(value, str) and len(value) >= self.low
        return isinstance(value, str) and len(value) <= self.high


def _code_rule(value: str, flag: str, option: bool = False) -> Rule:
    return Rule(value, "pattern", f"{flag} may hold only letters, digits, '_' and '-' "
                "(1 to 64)", pattern=CODE, option=option)


def _count_rule(value: str, low: int) -> Rule:
    flag = "--" + value.replace("_", "-")
    return Rule(value, "count", f"{flag} must be a whole number from {low} to {MAX_COUNT:,}",
                low=low, high=MAX_COUNT)


#: A web study's settings, checked in this order on both sides (the first broken rule is
#: the one said).
STUDY_RULES = (
    Rule("name", "pattern", "a study name may hold only letters, digits, '.', '_' and '-' "
         "(at most 64, starting with a letter or digit)", pattern=STUDY_NAME),
    _count_rule("per_task", 1), _count_rule("checks", 0), _count_rule("per_item", 1),
    Rule("lease_minutes", "minutes", "--lease-minutes must be a positive number below "
         f"{MAX_LEASE_MINUTES:,.0f}", high=MAX_LEASE_MINUTES),
    Rule("completion_url", "pattern", "--completion-url must be an http:// or https:// "
         f"address of at most {MAX_URL_CHARS:,} characters", pattern=URL, high=MAX_URL_CHARS,
         empty_ok=True),
    _code_rule("code", "--completion-code"),
    Rule("secret", "longer", "the study secret is too short", low=MIN_SECRET_CHARS),
    Rule("options", "shorter", f"the options hold more than {MAX_OPTIONS_CHARS:,} "
         "characters", high=MAX_OPTIONS_CHARS),
    _code_rule("partial_code", "--partial-code", option=True),
    _code_rule("prolific_study", "--prolific-study", option=True),
    Rule("frame_from", "pattern", "--allow-frame-from must be an origin such as "
         "https://www.mturk.com", pattern=ORIGIN, option=True),
    Rule("redirect_seconds", "count", "--redirect-seconds must be a whole number from 0 to "
         f"{MAX_REDIRECT_SECONDS}", high=MAX_REDIRECT_SECONDS, option=True),
    Rule("instructions", "shorter", f"--instructions: the text is longer than "
         f"{MAX_OPTION_TEXT:,} characters", high=MAX_OPTION_TEXT, option=True),
    Rule("consent", "shorter", f"--consent: the text is longer than {MAX_OPTION_TEXT:,} "
         "characters", high=MAX_OPTION_TEXT, option=True),
)
#: What is said of options that are not a JSON object (only a hand-made client sends it).
OPTIONS_NOT_OBJECT = "the options are not a JSON object"


def study_problem(values: dict) -> str | None:
    """The first rule a study's settings break (its message), else None. `values` holds
    the parameters by name and the options (a dict) under `options_dict`; a parameter left
    out is not checked (a change that keeps it)."""
    options = values.get("options_dict", {})
    for rule in STUDY_RULES:
        if rule.option:
            value = options.get(rule.value)
        elif rule.value in values:
            value = values[rule.value]
        else:
            continue
        if not rule.holds(value):
            return rule.message
    return None


# ------------------------------------------------------------------ web refusals
#: What the web page refuses, by name: (HTTP status, the message the worker reads).
REFUSALS = {
    "no_study": (404, "no such study"),
    "closed": (410, "this study is closed"),
    "worker_id": (400, "the link lacks a valid worker id (PROLIFIC_PID or worker)"),
    "open_elsewhere": (409, "this worker already has a task open in another browser; go "
                            "back to it, or wait until it times out"),
    "none_left": (410, "there is no task left in this study for you; thank you"),
    "expired_page": (403, "this page has expired; open your study link again"),
    "time_out": (409, "the time for this task ran out; open your study link again for a "
                      "new one"),
    "no_slot": (400, "no such item in this task"),
    "rated": (409, "this item was rated already"),
    "person": (403, "this worker id cannot be used for this study"),
    "address_full": (429, "tasks started from this address wait for their first rating; "
                          "rate those, or try again in a few minutes"),
    "busy": (503, "many tasks were started just now; try again in a minute"),
    "score": (400, "the score must be a value of the scale"),
}
#: A worker id that names a rater of another kind (one namespace): `{held}` is KIND_WORDS.
WORKER_OF_OTHER_KIND = (403, "this worker id is the name of {held} of this project; it "
                             "cannot be used for this study")


# ------------------------------------------------------------------ stored scores
@dataclass(frozen=True)
class CodeRule:
    """What every stored score keeps, on the file and on the hub (whose triggers and table
    constraints app/hub/schema/scale_sql.py renders from these). `kind`: `range` (a code,
    when there is one, is a whole number from 0 to the scale's highest code: the codes are
    the grid's steps, so a whole code is on the grid) or `skipped` (a rating marked skipped
    holds no code). `tables`: the tables that hold it; `message` takes `{code}`, `{high}`
    (the highest code) and `{scale}` (Scale.describe())."""

    name: str
    kind: str
    tables: tuple[str, ...]
    message: str

    def holds(self, code: object, skipped: object, max_code: int) -> bool:
        """Whether a row of `code` (None: no score) and `skipped` keeps the rule."""
        if self.kind == "range":
            return code is None or (type(code) is int and 0 <= code <= max_code)
        return not skipped or code is None


#: The rules of stored scores, checked in this order (the first broken one is said).
CODE_RULES = (
    CodeRule("on_scale", "range", ("ratings", "adjudications"),
             "score refused: code {code} is off the scale {scale}, whose codes run from 0 "
             "to {high}"),
    CodeRule("skipped_unscored", "skipped", ("ratings",),
             "score refused: a rating marked skipped holds no score (skip it, or score it)"),
)


def code_problem(code: object, skipped: object, max_code: int, scale: str,
                 table: str = "ratings") -> str | None:
    """The message of the first rule of CODE_RULES a row of `table` breaks, else None."""
    for rule in CODE_RULES:
        if table in rule.tables and not rule.holds(code, skipped, max_code):
            return rule.message.format(code=code, high=max_code, scale=scale)
    return None
