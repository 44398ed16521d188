"""The hub keeps every stored score on the published scale, whoever writes it (a direct
login, the sync service, the web page, an organizer): the rules of stored scores
(simrate.core.base.rules.CODE_RULES) rendered with the scale's highest code.

Each table that holds a code (ratings, adjudications) gets

- a trigger `check_scale`, first of its BEFORE triggers (they fire in name order), that
  refuses a row breaking a rule with that rule's one-line message (SQLSTATE SR400), so a
  client reads our words, never PostgreSQL's;
- a CHECK constraint `<table>_<rule>` of the same condition, the floor under the trigger
  (it holds even where triggers do not fire). It is added NOT VALID, so that rows an older
  hub let in stay readable; publishing validates it once no such row is left
  (hub/team/scale_guard.py reports them).

The trigger runs with the writer's rights and on the writer's search_path (it compares
integers, and pinning a path of its own would cost every write a switch of search_path):
a writer who put operators of their own before pg_catalog could only change which words
refuse their own row, and the constraint still refuses it.

The highest code is rendered into the SQL when the project is published (the scale is
fixed then: the hub's `settings` row `scale`), so no write looks anything up.
"""

from __future__ import annotations

from simrate.core.base import rules
from simrate.hub.schema.rules_sql import code_broken, code_message

#: The tables that hold a score code.
CODE_TABLES = ("ratings", "adjudications")


def table_rules(table: str) -> list[rules.CodeRule]:
    """The rules of stored scores that hold on `table`."""
    return [rule for rule in rules.CODE_RULES if table in rule.tables]


def constraint_name(table: str, rule: rules.CodeRule) -> str:
    return f"{table}_{rule.name}"


def _trigger_sql(table: str, max_code: int, scale: str) -> str:
    checks = "\n".join(
        f"  IF {code_broken(rule, max_code, 'NEW.')} THEN\n"
        f"    RAISE EXCEPTION USING ERRCODE = 'SR400',\n"
        f"      MESSAGE = {code_message(rule, max_code, scale)};\n  END IF;"
        for rule in table_rules(table))
    return f"""
CREATE OR REPLACE FUNCTION simrate.check_scale_{table}() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
{checks}
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION simrate.check_scale_{table}() FROM PUBLIC;
DROP TRIGGER IF EXISTS check_scale ON simrate.{table};
CREATE TRIGGER check_scale BEFORE INSERT OR UPDATE ON simrate.{table}
  FOR EACH ROW EXECUTE FUNCTION simrate.check_scale_{table}();"""


def _constraints_sql(table: str, max_code: int) -> str:
    parts = []
    for rule in table_rules(table):
        name = constraint_name(table, rule)
        parts.append(f"""
ALTER TABLE simrate.{table} DROP CONSTRAINT IF EXISTS {name};
ALTER TABLE simrate.{table} ADD CONSTRAINT {name}
  CHECK (NOT ({code_broken(rule, max_code)})) NOT VALID;""")
    return "".join(parts)


def scale_statements(max_code: int, scale: str) -> list[str]:
    """The triggers and constraints for a scale whose highest code is `max_code`
    (`scale`: its Scale.describe(), for the messages); run as the owner role."""
    return [_trigger_sql(table, max_code, scale) + _constraints_sql(table, max_code)
            for table in CODE_TABLES]


def broken_rows_sql(max_code: int, limit: int) -> str:
    """Rows that break a rule of stored scores: (table, item, annotator or '', code,
    skipped, the count of all such rows), the first `limit` in sequence order."""
    selects = []
    for table in CODE_TABLES:
        who = "annotator" if table == "ratings" else "''"
        skipped = "skipped" if table == "ratings" else "false"
        broken = " OR ".join(f"({code_broken(rule, max_code)})" for rule in table_rules(table))
        selects.append(f"SELECT '{table}' AS tbl, item_id, {who} AS who, code, {skipped} "
                       f"AS skipped, seq FROM simrate.{table} WHERE {broken}")
    union = " UNION ALL ".join(selects)
    return (f"SELECT tbl, item_id, who, code, skipped, count(*) OVER () FROM ({union}) b "
            f"ORDER BY seq LIMIT {int(limit)}")


def validate_sql() -> str:
    """Validate every constraint of stored scores (once no row breaks them)."""
    return "\n".join(f"ALTER TABLE simrate.{table} VALIDATE CONSTRAINT "
                     f"{constraint_name(table, rule)};"
                     for table in CODE_TABLES for rule in table_rules(table))
