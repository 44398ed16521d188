"""The hub's own check of what an organizer's login stores as a web study (issue 32): the
rules of web_study.py and crowdweb/options.py again, in `web_check_study`, which `web_set_study`
runs first (SQLSTATE 22023, one sentence), and a table constraint (new rows) behind it; so
a `javascript:` URL, a study named `../x` or a lease of -1 is refused whatever client the
login uses."""

from __future__ import annotations

WEB_CHECKS_SQL = r"""
CREATE OR REPLACE FUNCTION simrate.web_check_study(
    p_name text, p_per_task integer, p_checks integer, p_per_item integer,
    p_lease_minutes double precision, p_completion_url text, p_code text, p_secret text,
    p_options text)
RETURNS void LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  opts jsonb;
  problem text;
BEGIN
  BEGIN
    opts := p_options::jsonb;
  EXCEPTION WHEN others THEN
    opts := NULL;
  END;
  problem := CASE
    WHEN p_name IS NULL OR p_name !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'
      THEN 'a study name holds only letters, digits, dots, underscores and dashes'
    WHEN p_per_task IS NULL OR p_per_task < 1 OR p_per_task > 100000
      THEN 'per_task must be 1 or more'
    WHEN p_checks IS NULL OR p_checks < 0 OR p_checks > 100000 THEN 'checks must be 0 or more'
    WHEN p_per_item IS NULL OR p_per_item < 1 OR p_per_item > 100000
      THEN 'per_item must be 1 or more'
    WHEN p_lease_minutes IS NULL OR NOT (p_lease_minutes > 0 AND p_lease_minutes < 1e6)
      THEN 'lease minutes must be a positive number'
    WHEN coalesce(p_completion_url, '') !~ '^(https?://[^][:space:]<>"''`\\]+)?$'
      THEN 'the completion URL must be an http:// or https:// address'
    WHEN p_code IS NULL OR p_code !~ '^[A-Za-z0-9_-]{1,64}$'
      THEN 'a completion code holds only letters, digits, underscores and dashes'
    WHEN p_secret IS NULL OR length(p_secret) < 32 THEN 'the study secret is too short'
    WHEN opts IS NULL OR jsonb_typeof(opts) <> 'object' THEN 'the options are not a JSON object'
    WHEN coalesce(opts ->> 'partial_code', 'x') !~ '^[A-Za-z0-9_-]{1,64}$'
      THEN 'a partial code holds only letters, digits, underscores and dashes'
    WHEN coalesce(opts ->> 'prolific_study', 'x') !~ '^[A-Za-z0-9_-]{1,64}$'
      THEN 'a platform study id holds only letters, digits, underscores and dashes'
    WHEN coalesce(opts ->> 'frame_from', 'http://x') !~ '^https?://[A-Za-z0-9.:-]+$'
      THEN 'a frame origin must be an http:// or https:// origin'
    WHEN length(p_options) > 200000 THEN 'the options are too long'
    WHEN length(p_completion_url) > 2000 THEN 'the completion URL is too long'
  END;
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION USING MESSAGE = 'web study refused: ' || problem, ERRCODE = '22023';
  END IF;
END $$;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'web_studies_sane') THEN
    ALTER TABLE simrate.web_studies ADD CONSTRAINT web_studies_sane CHECK (
      name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' AND per_task >= 1 AND checks >= 0
      AND per_item >= 1 AND lease_minutes > 0 AND lease_minutes < 1e6
      AND completion_url ~ '^(https?://[^][:space:]<>"''`\\]+)?$') NOT VALID;
  END IF;
END $$;
"""
