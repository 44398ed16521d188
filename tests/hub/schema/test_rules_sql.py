"""The hub's SQL text is rendered from simrate.core.base.rules: no rule token is left in
it, every web refusal of the rules is one the hub can make, and each pattern is the
rules' own, anchored (no PostgreSQL needed: the contract suite runs the SQL itself)."""

from __future__ import annotations

import re

from simrate.core.base import rules
from simrate.hub.schema import role_names, schema_statements
from simrate.hub.schema.rules_sql import pattern, refuse
from simrate.hub.schema.web_lease import WEB_LEASE_SQL
from simrate.hub.schema.web_rate import WEB_RATE_SQL


def test_the_rendered_schema_holds_no_rule_token_and_every_refusal_of_the_rules():
    text = "\n".join(schema_statements(role_names("hub_db")))
    assert re.findall(r"@(?:refuse|pattern|text|number):\w+", text) == []
    for name in rules.REFUSALS:
        assert refuse(name) in text, name
    for regex in (rules.WORKER_ID, rules.SESSION_ID, rules.STUDY_NAME, rules.CODE,
                  rules.ORIGIN, rules.URL):
        assert pattern(regex) in text, regex
    for rule in rules.STUDY_RULES:
        assert rule.message.replace("'", "''") in text, rule.value


def test_the_templates_name_only_refusals_the_rules_hold():
    named = set(re.findall(r"@refuse:(\w+)", WEB_LEASE_SQL + WEB_RATE_SQL))
    assert named <= set(rules.REFUSALS) and named
    assert "web_refuse('" not in WEB_LEASE_SQL + WEB_RATE_SQL  # no refusal written by hand
