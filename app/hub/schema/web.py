"""The web studies' part of the hub's schema (issue 24): tables, functions and privileges."""

from __future__ import annotations

from simrate.hub.schema.durable import WEB_FLUSH_SQL
from simrate.hub.schema.names import fill
from simrate.hub.schema.web_checks import web_checks_sql
from simrate.hub.schema.web_lease import lease_sql
from simrate.hub.schema.web_rate import rate_sql

# `simrate serve` on an organizer's replica talks to the hub as a login of the web group
# role (`<prefix>_web`), which has no privilege on any table: it may only call the four
# functions below, which lease tasks (`FOR UPDATE SKIP LOCKED`: concurrent leases never
# take one pool row twice, and a row's count is checked again once it is locked, so no
# item gets more than R web ratings) and insert ratings for the worker of the task whose
# secret cookie and token the request carries. Crowd workers are annotators of kind
# `crowd`; their ratings go into `ratings` with the usual stamps, so they reach the
# organizers' replicas (and no annotator's: row-level security) by the usual pull.
# Refusals carry SQLSTATEs `SR4xx` whose last three digits are the HTTP status.

#: The name of the web group role and of the web login, from the owner role's name.
def web_role_names(roles: dict[str, str]) -> dict[str, str]:
    """{'web': group role, 'weblogin': the login `simrate serve` uses} of a hub."""
    prefix = roles["owner"].removesuffix("_owner")
    return {"web": f"{prefix}_web", "weblogin": f"{prefix}_webserver"}


WEB_TABLES_SQL = """
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @web_lit) THEN
    CREATE ROLE @web NOLOGIN;
  END IF;
END $$;
GRANT USAGE ON SCHEMA simrate TO @web;
CREATE TABLE IF NOT EXISTS simrate.web_studies (
    name text PRIMARY KEY, per_task integer NOT NULL, checks integer NOT NULL,
    per_item integer NOT NULL, lease_minutes double precision NOT NULL,
    completion_url text NOT NULL DEFAULT '', code text NOT NULL, secret text NOT NULL,
    open boolean NOT NULL DEFAULT true, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS simrate.web_pool (
    study text NOT NULL REFERENCES simrate.web_studies (name),
    item_id text NOT NULL REFERENCES simrate.items (id),
    is_check boolean NOT NULL DEFAULT false, used integer NOT NULL DEFAULT 0,
    rank integer NOT NULL, PRIMARY KEY (study, item_id));
CREATE INDEX IF NOT EXISTS web_pool_next ON simrate.web_pool (study, used, rank)
  WHERE NOT is_check;
CREATE SEQUENCE IF NOT EXISTS simrate.web_task_numbers;
CREATE TABLE IF NOT EXISTS simrate.web_tasks (
    study text NOT NULL REFERENCES simrate.web_studies (name), task text NOT NULL,
    worker text NOT NULL, session text NOT NULL DEFAULT '', cookie text NOT NULL UNIQUE,
    token text NOT NULL, state text NOT NULL CHECK (state IN ('leased', 'done', 'expired')),
    leased_at double precision NOT NULL, expires_at double precision NOT NULL,
    done_at double precision, PRIMARY KEY (study, task));
-- one live task per worker and study, whatever number of servers lease at once
CREATE UNIQUE INDEX IF NOT EXISTS web_tasks_one_live ON simrate.web_tasks (study, worker)
  WHERE state = 'leased';
CREATE INDEX IF NOT EXISTS web_tasks_worker ON simrate.web_tasks (worker, state);
CREATE INDEX IF NOT EXISTS web_tasks_expiry ON simrate.web_tasks (study, expires_at)
  WHERE state = 'leased';
CREATE TABLE IF NOT EXISTS simrate.web_slots (
    study text NOT NULL, task text NOT NULL, slot integer NOT NULL,
    item_id text NOT NULL REFERENCES simrate.items (id), is_check boolean NOT NULL,
    rated_at double precision, seconds double precision,
    PRIMARY KEY (study, task, slot),
    FOREIGN KEY (study, task) REFERENCES simrate.web_tasks (study, task));
CREATE INDEX IF NOT EXISTS web_slots_item ON simrate.web_slots (study, item_id);
ALTER TABLE simrate.web_studies ADD COLUMN IF NOT EXISTS options text NOT NULL DEFAULT '{}';
ALTER TABLE simrate.web_tasks ADD COLUMN IF NOT EXISTS address text NOT NULL DEFAULT '';
-- what a task start reads in constant time (web_lease.py, web_make_room): the pool's size
-- (pairs that are no check items), kept by web_set_study; when a task had its first rating;
-- the tasks still without one, and the check items, each under an index of their own
ALTER TABLE simrate.web_studies ADD COLUMN IF NOT EXISTS pool_size integer NOT NULL DEFAULT 0;
UPDATE simrate.web_studies s SET pool_size = (
  SELECT count(*) FROM simrate.web_pool p WHERE p.study = s.name AND NOT p.is_check)
WHERE s.pool_size = 0;
ALTER TABLE simrate.web_tasks ADD COLUMN IF NOT EXISTS first_rated_at double precision;
UPDATE simrate.web_tasks t SET first_rated_at = r.at FROM (
  SELECT s.study, s.task, min(s.rated_at) AS at FROM simrate.web_slots s
  WHERE s.rated_at IS NOT NULL GROUP BY s.study, s.task) r
WHERE t.first_rated_at IS NULL AND r.study = t.study AND r.task = t.task;
CREATE INDEX IF NOT EXISTS web_tasks_unrated ON simrate.web_tasks (study, address)
  WHERE state = 'leased' AND first_rated_at IS NULL;
CREATE INDEX IF NOT EXISTS web_pool_checks ON simrate.web_pool (study) WHERE is_check;
-- the tasks leased and still without a rating, counted per study in 128 shards chosen by
-- the server connection (so that concurrent writers seldom meet on a row): a start sums
-- at most 128 rows, however many tasks are open (web_make_room). Kept by the triggers below
-- alone, counted afresh from the tasks at every publish.
CREATE TABLE IF NOT EXISTS simrate.web_unrated (
    study text NOT NULL, shard integer NOT NULL, n integer NOT NULL,
    PRIMARY KEY (study, shard));
REVOKE ALL ON simrate.web_unrated FROM PUBLIC;
CREATE OR REPLACE FUNCTION simrate.web_count_unrated() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  delta integer := CASE TG_OP WHEN 'INSERT' THEN 1 WHEN 'DELETE' THEN -1
                   WHEN 'UPDATE' THEN CASE WHEN NEW.state = 'leased'
                     AND NEW.first_rated_at IS NULL THEN 1 ELSE -1 END END;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM simrate.web_unrated;
  ELSE
    INSERT INTO simrate.web_unrated AS u (study, shard, n)
    VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.study ELSE NEW.study END,
            pg_backend_pid() % 128, delta)
    ON CONFLICT (study, shard) DO UPDATE SET n = u.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION simrate.web_count_unrated() FROM PUBLIC;
DROP TRIGGER IF EXISTS count_unrated_insert ON simrate.web_tasks;
CREATE TRIGGER count_unrated_insert AFTER INSERT ON simrate.web_tasks FOR EACH ROW
  WHEN (NEW.state = 'leased' AND NEW.first_rated_at IS NULL)
  EXECUTE FUNCTION simrate.web_count_unrated();
DROP TRIGGER IF EXISTS count_unrated_update ON simrate.web_tasks;
CREATE TRIGGER count_unrated_update AFTER UPDATE ON simrate.web_tasks FOR EACH ROW
  WHEN ((OLD.state = 'leased' AND OLD.first_rated_at IS NULL)
        IS DISTINCT FROM (NEW.state = 'leased' AND NEW.first_rated_at IS NULL))
  EXECUTE FUNCTION simrate.web_count_unrated();
DROP TRIGGER IF EXISTS count_unrated_delete ON simrate.web_tasks;
CREATE TRIGGER count_unrated_delete AFTER DELETE ON simrate.web_tasks FOR EACH ROW
  WHEN (OLD.state = 'leased' AND OLD.first_rated_at IS NULL)
  EXECUTE FUNCTION simrate.web_count_unrated();
DROP TRIGGER IF EXISTS count_unrated_truncate ON simrate.web_tasks;
CREATE TRIGGER count_unrated_truncate AFTER TRUNCATE ON simrate.web_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION simrate.web_count_unrated();
-- (the triggers' DDL holds every writer of the tasks off until this transaction ends)
DELETE FROM simrate.web_unrated;
INSERT INTO simrate.web_unrated (study, shard, n)
SELECT t.study, 0, count(*) FROM simrate.web_tasks t
WHERE t.state = 'leased' AND t.first_rated_at IS NULL GROUP BY t.study;
"""

WEB_FUNCTIONS_SQL = r"""
-- organizers: create, change or close a study; its pool is every item of the hub but the
-- check items named (which go in as check items); re-running adds items added since. The
-- settings are checked here too, whatever client an organizer's login uses.
DROP FUNCTION IF EXISTS simrate.web_set_study(text, integer, integer, integer,
  double precision, text, boolean, text[], text, text);
CREATE OR REPLACE FUNCTION simrate.web_set_study(
    p_name text, p_per_task integer, p_checks integer, p_per_item integer,
    p_lease_minutes double precision, p_completion_url text, p_open boolean,
    p_check_ids text[], p_code text, p_secret text, p_options text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM simrate.web_check_study(p_name, p_per_task, p_checks, p_per_item, p_lease_minutes,
                                  p_completion_url, p_code, p_secret, p_options);
  INSERT INTO simrate.web_studies AS w (name, per_task, checks, per_item, lease_minutes,
                                        completion_url, code, secret, open, options)
  VALUES (p_name, p_per_task, p_checks, p_per_item, p_lease_minutes, p_completion_url,
          p_code, p_secret, p_open, p_options)
  ON CONFLICT (name) DO UPDATE SET per_task = EXCLUDED.per_task, checks = EXCLUDED.checks,
    per_item = EXCLUDED.per_item, lease_minutes = EXCLUDED.lease_minutes,
    completion_url = EXCLUDED.completion_url, open = EXCLUDED.open, code = EXCLUDED.code,
    options = EXCLUDED.options;
  IF p_open THEN
    INSERT INTO simrate.web_pool (study, item_id, is_check, used, rank)
    SELECT p_name, i.id, i.id = ANY (p_check_ids), 0, (random() * 2000000000)::integer
    FROM simrate.items i
    ON CONFLICT (study, item_id) DO UPDATE SET is_check = EXCLUDED.is_check
    WHERE simrate.web_pool.is_check IS DISTINCT FROM EXCLUDED.is_check;
    -- the planner learns the pool's size now, not at autovacuum's next look: the lease's
    -- pick takes half the time with it (9 against 17 ms at 200,000 pairs)
    ANALYZE simrate.web_pool;
  END IF;
  UPDATE simrate.web_studies s SET pool_size = (
    SELECT count(*) FROM simrate.web_pool p WHERE p.study = p_name AND NOT p.is_check)
  WHERE s.name = p_name;
END $$;

-- organizers: make (or give a new password to) the login simrate serve uses
CREATE OR REPLACE FUNCTION simrate.web_login(verifier text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @weblogin_lit) THEN
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT',
                   @weblogin_lit);
  END IF;
  EXECUTE format('GRANT %I TO %I', @web_lit, @weblogin_lit);
  EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', @weblogin_lit, verifier);
  RETURN @weblogin_lit;
END $$;

REVOKE ALL ON simrate.web_studies, simrate.web_pool, simrate.web_tasks, simrate.web_slots
  FROM PUBLIC;
REVOKE ALL ON SEQUENCE simrate.web_task_numbers FROM PUBLIC;
GRANT SELECT ON simrate.web_studies, simrate.web_pool, simrate.web_tasks, simrate.web_slots
  TO @organizers;
REVOKE ALL ON FUNCTION simrate.web_study(text), simrate.web_lease_row(text, text),
  simrate.web_release(text, text[], boolean),
  simrate.web_expire(text, text, double precision), simrate.web_refuse(text, integer),
  simrate.web_open_study(text), simrate.web_make_room(simrate.web_studies, text,
  double precision), simrate.web_unrated_cap(simrate.web_studies),
  simrate.web_lease(text, text, text, text, text),
  simrate.web_task(text, text), simrate.web_slot(text, text, integer),
  simrate.web_rate(text, text, text, integer, integer),
  simrate.web_rate_show(text, text, text, integer, integer), simrate.web_rate_shows(jsonb),
  simrate.web_check_study(text, integer, integer, integer, double precision, text, text,
                          text, text),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text, text),
  simrate.web_login(text), simrate.web_worker_name(text) FROM PUBLIC;
-- serve announces the ratings of its quiet calls after their commits (tables.py)
GRANT EXECUTE ON FUNCTION simrate.announce_writes(text[]) TO @web;
GRANT EXECUTE ON FUNCTION simrate.web_study(text),
  simrate.web_lease(text, text, text, text, text), simrate.web_task(text, text),
  simrate.web_slot(text, text, integer), simrate.web_rate(text, text, text, integer, integer),
  simrate.web_rate_show(text, text, text, integer, integer), simrate.web_rate_shows(jsonb)
  TO @web;
GRANT EXECUTE ON FUNCTION simrate.web_study(text),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text, text),
  simrate.web_login(text) TO @organizers;
"""

#: Advisory lock class of web leases (two-key locks: apart from the sequence stamp's).
WEB_LOCK = 7305821


def web_statements(roles: dict[str, str]) -> list[str]:
    """The web studies' tables, functions and privileges (run as the owner role)."""
    web = web_role_names(roles)
    # longer keys first: `@web` is the start of `@weblogin`
    names = {"weblogin": web["weblogin"], **roles, "web": web["web"]}
    return [fill(text.replace("@web_lock", str(WEB_LOCK)), names)
            for text in (WEB_TABLES_SQL, web_checks_sql(), lease_sql(), rate_sql(),
                         WEB_FUNCTIONS_SQL, WEB_FLUSH_SQL)]
