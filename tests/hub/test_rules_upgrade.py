"""A hub made with older rules takes the current ones (simrate.core.base.rules, rendered
into its SQL) when the organizer publishes again: its functions are replaced and its table
constraint made again, while rows the older rules let in stay readable and publishing over
them works."""

from __future__ import annotations

import psycopg
import pytest

from simrate.core.base import rules
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.hub.schema import HUB_SCHEMA_VERSION
from tests.hub.webhub import published_study

#: What a hub of older rules held: a study check that let anything through and a
#: constraint with lower bounds only.
OLDER_RULES = [
    """CREATE OR REPLACE FUNCTION simrate.web_check_study(p_name text, p_per_task integer,
         p_checks integer, p_per_item integer, p_lease_minutes double precision,
         p_completion_url text, p_code text, p_secret text, p_options text)
       RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN END $$""",
    "ALTER TABLE simrate.web_studies DROP CONSTRAINT web_studies_sane",
    "ALTER TABLE simrate.web_studies ADD CONSTRAINT web_studies_sane CHECK (per_task >= 1) "
    "NOT VALID",
]
PER_TASK = next(rule for rule in rules.STUDY_RULES if rule.value == "per_task")
SET_STUDY = ("SELECT simrate.web_set_study('big', %s, 0, 1, 10, '', true, '{}', 'CODE-1', "
             "repeat('k', 64), '{}')")


def test_publishing_again_brings_an_older_hubs_rules_up_to_date(hub, tmp_path):
    from simrate.hub.team.publish import publish

    path, _ = published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    too_many = rules.MAX_COUNT + 1
    with hub.admin() as conn:
        for statement in OLDER_RULES:
            conn.execute(statement)
        conn.execute(SET_STUDY, (too_many,))  # the older hub takes it
        version = conn.execute("SELECT value FROM simrate.hub WHERE key = 'hub_schema'"
                               ).fetchone()[0]
    assert version == str(HUB_SCHEMA_VERSION)
    with Project.open(path) as project:
        publish(project, hub.url())  # over a row the current rules refuse: still works
        assert web.get_study(project, "s") is not None
    with hub.admin() as conn:
        assert conn.execute("SELECT per_task FROM simrate.web_studies WHERE name = 'big'"
                            ).fetchone() == (too_many,)  # kept, readable
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(SET_STUDY, (too_many,))
        assert refused.value.diag.message_primary == \
            rules.STUDY_REFUSED + PER_TASK.message
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("UPDATE simrate.web_studies SET per_task = %s WHERE name = 's'",
                         (too_many,))
        conn.execute(SET_STUDY, (rules.MAX_COUNT,))  # within the rules: taken
        with pytest.raises(psycopg.Error) as long_id:
            conn.execute("SELECT * FROM simrate.web_lease('s', %s, '', '', '')",
                         ("w" * (rules.MAX_RATER_CHARS + 1),))
        assert long_id.value.sqlstate == "SR400"
