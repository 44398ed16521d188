"""The hub's own check of what an organizer's login stores as a web study (issue 32): the
rules of simrate.core.base.rules (STUDY_RULES), which the file's side checks in Python, here
rendered into `web_check_study` (rules_sql.py), which `web_set_study` runs first (SQLSTATE
22023, one sentence, the same as the file's), and a table constraint (new rows) behind it;
so a `javascript:` URL, a study named `../x` or a lease of -1 is refused whatever client
the login uses."""

from __future__ import annotations

from simrate.hub.schema.rules_sql import render, study_case, study_constraint

WEB_CHECKS_SQL = r"""
CREATE OR REPLACE FUNCTION simrate.web_check_study(
    p_name text, p_per_task integer, p_checks integer, p_per_item integer,
    p_lease_minutes double precision, p_completion_url text, p_code text, p_secret text,
    p_options text)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  opts jsonb;
  problem text;
BEGIN
  BEGIN
    opts := p_options::jsonb;
  EXCEPTION WHEN others THEN
    opts := NULL;
  END;
  problem := @study_case;
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION USING MESSAGE = @text:STUDY_REFUSED || problem, ERRCODE = '22023';
  END IF;
END $$;
-- the constraint is made again on every publish, so that a hub made with other rules
-- checks its next rows with these (NOT VALID: rows already there are left as they are)
ALTER TABLE simrate.web_studies DROP CONSTRAINT IF EXISTS web_studies_sane;
ALTER TABLE simrate.web_studies ADD CONSTRAINT web_studies_sane CHECK (
      @study_constraint) NOT VALID;
"""


def web_checks_sql() -> str:
    """The function and the constraint with the rules written in."""
    return render(WEB_CHECKS_SQL.replace("@study_case", study_case())
                  .replace("@study_constraint", study_constraint()))
