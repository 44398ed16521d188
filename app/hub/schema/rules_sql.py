"""The rules of simrate.core.base.rules rendered into the hub's SQL: patterns and messages
become quoted literals, each web study rule a condition of `web_check_study`'s CASE, each
web refusal a call of `simrate.web_refuse`. The schema modules put them into their
templates with `render` (`@refuse:name`, `@pattern:NAME`, `@text:NAME`, `@number:NAME`),
so the file's checks and the hub's cannot drift apart."""

from __future__ import annotations

import re

from simrate.core.base import rules
from simrate.core.base.rules import Rule
from simrate.hub.schema.names import quote_literal


def pattern(regex: str) -> str:
    """A PostgreSQL literal of `regex` anchored at both ends (`~` then matches the whole
    text, as Python's fullmatch)."""
    return quote_literal(f"^(?:{regex})$")


def refuse(name: str) -> str:
    """The call that refuses a web request with the refusal `name` (SQLSTATE SR<status>)."""
    status, message = rules.REFUSALS[name]
    return f"simrate.web_refuse({quote_literal(message)}, {status})"


def number(value: float) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


def _option_value(rule: Rule) -> tuple[str, str]:
    """(the option's JSON value, its text) in `web_check_study`."""
    key = quote_literal(rule.value)
    return f"(opts -> {key})", f"(opts ->> {key})"


def broken(rule: Rule, column: str | None = None) -> str:
    """The SQL condition true when `rule` is broken (`column`: the value's expression when
    it is not the function's parameter `p_<value>`)."""
    if rule.option:
        return _broken_option(rule)
    v = column or f"p_{rule.value}"
    if rule.kind == "pattern":
        keeps = f"{v} ~ {pattern(rule.pattern)}"
        if rule.high:
            keeps += f" AND char_length({v}) <= {number(rule.high)}"
        if rule.empty_ok:
            keeps = f"{v} = '' OR ({keeps})"
        return f"{v} IS NULL OR NOT ({keeps})"
    if rule.kind == "count":
        return f"{v} IS NULL OR {v} < {number(rule.low)} OR {v} > {number(rule.high)}"
    if rule.kind == "minutes":
        return f"{v} IS NULL OR NOT ({v} > 0 AND {v} < {number(rule.high)})"
    if rule.kind == "longer":
        return f"{v} IS NULL OR char_length({v}) < {number(rule.low)}"
    return f"{v} IS NULL OR char_length({v}) > {number(rule.high)}"


def _broken_option(rule: Rule) -> str:
    """An option breaks its rule when it is there (not JSON null) and is not as it must be
    (a text where a text belongs, a whole number where a number does)."""
    value, text = _option_value(rule)
    given = f"coalesce(jsonb_typeof({value}), 'null') <> 'null'"
    if rule.kind == "count":
        # CASE: the cast is made only of digits (AND does not fix an order)
        keeps = (f"CASE WHEN jsonb_typeof({value}) = 'number' AND {text} ~ '^[0-9]{{1,9}}$' "
                 f"THEN {text}::integer BETWEEN {number(rule.low)} AND {number(rule.high)} "
                 "ELSE false END")
    elif rule.kind == "pattern":
        keeps = f"jsonb_typeof({value}) = 'string' AND {text} ~ {pattern(rule.pattern)}"
    else:
        keeps = (f"jsonb_typeof({value}) = 'string' AND "
                 f"char_length({text}) <= {number(rule.high)}")
    return f"{given} AND NOT ({keeps})"


def study_case() -> str:
    """The CASE of `web_check_study`: the first broken rule's message (NULL: none); the
    options must be a JSON object (`opts`) before any option is looked at."""
    lines, object_checked = ["CASE"], False
    for rule in rules.STUDY_RULES:
        if rule.option and not object_checked:
            lines.append(f"    WHEN opts IS NULL OR jsonb_typeof(opts) <> 'object' "
                         f"THEN {quote_literal(rules.OPTIONS_NOT_OBJECT)}")
            object_checked = True
        lines.append(f"    WHEN {broken(rule)}\n      THEN {quote_literal(rule.message)}")
    return "\n".join(lines) + "\n  END"


def study_constraint() -> str:
    """The table's own check of a study row (name, counts, lease, URL), the same rules."""
    columns = ("name", "per_task", "checks", "per_item", "lease_minutes", "completion_url")
    parts = [f"NOT ({broken(rule, rule.value)})" for rule in rules.STUDY_RULES
             if rule.value in columns]
    return "\n      AND ".join(parts)


def kind_case(variable: str, words: dict[str, str]) -> str:
    """`CASE variable WHEN 'human' THEN '...' ... ELSE variable END` from `words`."""
    whens = " ".join(f"WHEN {quote_literal(k)} THEN {quote_literal(w)}"
                     for k, w in words.items())
    return f"CASE {variable} {whens} ELSE {variable} END"



def code_broken(rule: rules.CodeRule, max_code: int, row: str = "") -> str:
    """The SQL condition true when a row breaks the stored-score rule `rule` (`row`:
    `NEW.` in a trigger, empty in a table constraint); `max_code` is rendered in."""
    if rule.kind == "range":
        return f"{row}code IS NOT NULL AND ({row}code < 0 OR {row}code > {int(max_code)})"
    return f"{row}skipped AND {row}code IS NOT NULL"


def code_message(rule: rules.CodeRule, max_code: int, scale: str, row: str = "NEW.") -> str:
    """The SQL expression of `rule`'s message for the row `row` (its code put in)."""
    text = rule.message.replace("{high}", str(int(max_code))).replace("{scale}", scale)
    return f"replace({quote_literal(text)}, '{{code}}', coalesce({row}code::text, ''))"


_TOKEN = re.compile(r"@(refuse|pattern|text|number):([A-Za-z_]+)")


def render(template: str) -> str:
    """The template with its rule tokens replaced: `@refuse:closed` by the refusal's call,
    `@pattern:WORKER_ID` by the anchored pattern, `@text:STUDY_REFUSED` by a quoted text,
    `@number:MAX_RATER_CHARS` by the number."""
    def one(match: re.Match) -> str:
        what, name = match.groups()
        if what == "refuse":
            return refuse(name)
        value = getattr(rules, name)
        if what == "pattern":
            return pattern(value)
        return quote_literal(value) if what == "text" else number(value)

    return _TOKEN.sub(one, template)
