"""The web studies' part of the hub's schema (issue 24): tables, functions and privileges."""

from __future__ import annotations

from simrate.core.team.hub.hub_schema.durable import WEB_FLUSH_SQL
from simrate.core.team.hub.hub_schema.names import fill

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
"""

WEB_FUNCTIONS_SQL = r"""
-- the settings of a study (the server computes the landing page's start token from them)
CREATE OR REPLACE FUNCTION simrate.web_study(p_name text)
RETURNS TABLE (name text, per_task integer, checks integer, per_item integer,
               lease_minutes double precision, completion_url text, code text, secret text,
               open boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT s.name, s.per_task, s.checks, s.per_item, s.lease_minutes, s.completion_url,
         s.code, s.secret, s.open FROM simrate.web_studies s WHERE s.name = p_name
$$;

CREATE OR REPLACE FUNCTION simrate.web_lease_row(p_study text, p_task text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT t.task, t.worker, t.cookie, t.token, t.state,
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task),
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NOT NULL),
         t.expires_at
  FROM simrate.web_tasks t WHERE t.study = p_study AND t.task = p_task
$$;

-- leases past their time go back to the pool: their unrated slots stop counting (the
-- ratings they got stay). p_worker NULL: any worker's, skipping tasks another
-- transaction holds; else that worker's, waiting for them.
CREATE OR REPLACE FUNCTION simrate.web_expire(p_study text, p_worker text,
                                              p_now double precision)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  tasks_ text[];
  ids text[];
  counts integer[];
BEGIN
  IF p_worker IS NULL THEN
    SELECT array_agg(l.task) INTO tasks_ FROM (
      SELECT t.task FROM simrate.web_tasks t
      WHERE t.study = p_study AND t.state = 'leased' AND t.expires_at <= p_now
      FOR UPDATE SKIP LOCKED) l;
  ELSE
    SELECT array_agg(l.task) INTO tasks_ FROM (
      SELECT t.task FROM simrate.web_tasks t
      WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'leased'
        AND t.expires_at <= p_now FOR UPDATE) l;
  END IF;
  IF tasks_ IS NULL THEN
    RETURN;
  END IF;
  UPDATE simrate.web_tasks t SET state = 'expired'
  WHERE t.study = p_study AND t.task = ANY (tasks_) AND t.state = 'leased';
  SELECT array_agg(q.item_id ORDER BY q.item_id), array_agg(q.n ORDER BY q.item_id)
  INTO ids, counts FROM (
    SELECT s.item_id, count(*)::integer AS n FROM simrate.web_slots s
    WHERE s.study = p_study AND s.task = ANY (tasks_) AND NOT s.is_check
      AND s.rated_at IS NULL GROUP BY s.item_id) q;
  IF ids IS NULL THEN
    RETURN;
  END IF;
  -- rows locked in one order by every expiring transaction: no deadlock between them
  PERFORM 1 FROM simrate.web_pool p WHERE p.study = p_study AND p.item_id = ANY (ids)
  ORDER BY p.item_id FOR UPDATE;
  UPDATE simrate.web_pool p SET used = p.used - u.n
  FROM unnest(ids, counts) AS u(item_id, n)
  WHERE p.study = p_study AND p.item_id = u.item_id;
END $$;

CREATE OR REPLACE FUNCTION simrate.web_refuse(message text, status integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'SR' || status::text;
END $$;

CREATE OR REPLACE FUNCTION simrate.web_open_study(p_study text)
RETURNS simrate.web_studies
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  st simrate.web_studies;
BEGIN
  SELECT * INTO st FROM simrate.web_studies WHERE name = p_study;
  IF NOT FOUND THEN
    PERFORM simrate.web_refuse('no such study', 404);
  END IF;
  IF NOT st.open THEN
    PERFORM simrate.web_refuse('this study is closed', 410);
  END IF;
  RETURN st;
END $$;

-- the worker's live task in the study, or a new one of K items and C check items
CREATE OR REPLACE FUNCTION simrate.web_lease(p_study text, p_worker text, p_session text,
                                             p_cookie text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  st simrate.web_studies;
  now_ double precision := extract(epoch FROM clock_timestamp());
  live simrate.web_tasks;
  picked text[];
  checks_ text[];
  slot_items text[];
  slot_checks boolean[];
  one text;
  pos integer;
  new_task text;
BEGIN
  st := simrate.web_open_study(p_study);
  IF p_worker IS NULL OR p_worker !~ '^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}$' THEN
    PERFORM simrate.web_refuse('the link lacks a valid worker id (PROLIFIC_PID or worker)',
                               400);
  END IF;
  -- the crowd worker of the id's key (`CAROL` is `carol`); another kind's name: SR403
  p_worker := simrate.claim_rater(p_worker, NULL, 'crowd');
  p_session := CASE WHEN coalesce(p_session, '') ~ '^[A-Za-z0-9_.:-]{0,100}$'
                    THEN coalesce(p_session, '') ELSE '' END;
  -- one worker's leases one at a time (two tabs pressing Start at once get one task)
  PERFORM pg_advisory_xact_lock(@web_lock, hashtext(p_study || '|' || p_worker));
  PERFORM simrate.web_expire(p_study, NULL, now_);
  PERFORM simrate.web_expire(p_study, p_worker, now_);
  SELECT * INTO live FROM simrate.web_tasks t
  WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'leased';
  IF FOUND THEN
    IF (coalesce(p_cookie, '') <> '' AND live.cookie = p_cookie)
       OR (p_session <> '' AND live.session = p_session) THEN
      RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, live.task);
      RETURN;
    END IF;
    PERFORM simrate.web_refuse('this worker already has a task open in another browser; '
                               'go back to it, or wait until it times out', 409);
  END IF;
  SELECT array_agg(q.item_id ORDER BY q.used, q.rank) INTO picked FROM (
    SELECT p.item_id, p.used, p.rank FROM simrate.web_pool p
    WHERE p.study = p_study AND NOT p.is_check AND p.used < st.per_item
      AND NOT EXISTS (SELECT 1 FROM simrate.ratings r
                      WHERE r.item_id = p.item_id AND r.annotator = p_worker)
      AND NOT EXISTS (SELECT 1 FROM simrate.web_slots s JOIN simrate.web_tasks t
                      ON t.study = s.study AND t.task = s.task
                      WHERE t.worker = p_worker AND t.state = 'leased'
                        AND s.item_id = p.item_id)
    ORDER BY p.used, p.rank LIMIT st.per_task
    FOR UPDATE OF p SKIP LOCKED) q;
  IF picked IS NULL THEN
    PERFORM simrate.web_refuse('there is no task left in this study for you; thank you', 410);
  END IF;
  IF st.checks > 0 THEN
    SELECT array_agg(q.item_id) INTO checks_ FROM (
      SELECT p.item_id FROM simrate.web_pool p
      WHERE p.study = p_study AND p.is_check
        AND NOT EXISTS (SELECT 1 FROM simrate.ratings r
                        WHERE r.item_id = p.item_id AND r.annotator = p_worker)
      ORDER BY random() LIMIT st.checks) q;
  END IF;
  slot_items := picked;
  slot_checks := array_fill(false, ARRAY[cardinality(picked)]);
  FOREACH one IN ARRAY coalesce(checks_, '{}'::text[]) LOOP
    pos := floor(random() * (cardinality(slot_items) + 1))::integer;
    slot_items := slot_items[1:pos] || one || slot_items[pos + 1:];
    slot_checks := slot_checks[1:pos] || true || slot_checks[pos + 1:];
  END LOOP;
  new_task := 'w' || lpad(nextval('simrate.web_task_numbers')::text, 6, '0');
  INSERT INTO simrate.web_tasks (study, task, worker, session, cookie, token, state,
                                 leased_at, expires_at)
  VALUES (p_study, new_task, p_worker, p_session,
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          'leased', now_, now_ + st.lease_minutes * 60);
  INSERT INTO simrate.web_slots (study, task, slot, item_id, is_check)
  SELECT p_study, new_task, n, slot_items[n], slot_checks[n]
  FROM generate_subscripts(slot_items, 1) AS n;
  UPDATE simrate.web_pool p SET used = p.used + 1
  WHERE p.study = p_study AND p.item_id = ANY (picked);
  RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, new_task);
END $$;

-- the task a cookie names, with its first unrated slot and that item's texts
CREATE OR REPLACE FUNCTION simrate.web_task(p_study text, p_cookie text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, slot integer, item_left text,
               item_right text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT l.*, n.slot, n."left", n."right"
  FROM simrate.web_tasks t
  CROSS JOIN LATERAL simrate.web_lease_row(t.study, t.task) l
  LEFT JOIN LATERAL (
    SELECT s.slot, i."left", i."right" FROM simrate.web_slots s
    JOIN simrate.items i ON i.id = s.item_id
    WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NULL
    ORDER BY s.slot LIMIT 1) n ON true
  WHERE t.study = p_study AND t.cookie = p_cookie
$$;

-- one rating for the worker of the task that the cookie and token name: 'saved', or
-- 'again' for a slot rated already (a resent form: nothing doubled), or 'done'
CREATE OR REPLACE FUNCTION simrate.web_rate(p_study text, p_cookie text, p_token text,
                                            p_slot integer, p_code integer)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  t simrate.web_tasks;
  s simrate.web_slots;
  now_ double precision := extract(epoch FROM clock_timestamp());
  took double precision;
BEGIN
  SELECT * INTO t FROM simrate.web_tasks w
  WHERE w.study = p_study AND w.cookie = p_cookie FOR UPDATE;
  IF NOT FOUND OR t.token IS DISTINCT FROM p_token THEN
    PERFORM simrate.web_refuse('this page has expired; open your study link again', 403);
  END IF;
  PERFORM simrate.web_open_study(p_study);
  IF t.state = 'done' THEN
    RETURN 'done';
  END IF;
  IF t.state <> 'leased' OR t.expires_at <= now_ THEN
    PERFORM simrate.web_refuse('the time for this task ran out; open your study link again '
                               'for a new one', 409);
  END IF;
  SELECT * INTO s FROM simrate.web_slots w
  WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
  IF NOT FOUND THEN
    PERFORM simrate.web_refuse('no such item in this task', 400);
  END IF;
  IF s.rated_at IS NOT NULL THEN
    RETURN 'again';
  END IF;
  IF p_code IS NULL THEN
    PERFORM simrate.web_refuse('the score must be a value of the scale', 400);
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = t.worker AND a.kind <> 'crowd')
  THEN
    PERFORM simrate.web_refuse('this worker id cannot be used for this study', 403);
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.ratings r WHERE r.item_id = s.item_id
             AND r.annotator = t.worker) THEN
    PERFORM simrate.web_refuse('this item was rated already', 409);
  END IF;
  took := round(greatest(0, now_ - greatest(t.leased_at, coalesce(
    (SELECT max(w.rated_at) FROM simrate.web_slots w
     WHERE w.study = p_study AND w.task = t.task), t.leased_at)))::numeric, 3);
  INSERT INTO simrate.ratings (item_id, annotator, code, note, skipped, seconds, updated_at)
  VALUES (s.item_id, t.worker, p_code, '', false, took, now_);
  UPDATE simrate.web_slots w SET rated_at = now_, seconds = took
  WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
  IF NOT EXISTS (SELECT 1 FROM simrate.web_slots w WHERE w.study = p_study
                 AND w.task = t.task AND w.rated_at IS NULL) THEN
    UPDATE simrate.web_tasks w SET state = 'done', done_at = now_
    WHERE w.study = p_study AND w.task = t.task;
    RETURN 'done';
  END IF;
  RETURN 'saved';
END $$;

-- organizers: create, change or close a study; its pool is every item of the hub but the
-- check items named (which go in as check items); re-running adds items added since
CREATE OR REPLACE FUNCTION simrate.web_set_study(
    p_name text, p_per_task integer, p_checks integer, p_per_item integer,
    p_lease_minutes double precision, p_completion_url text, p_open boolean,
    p_check_ids text[], p_code text, p_secret text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO simrate.web_studies AS w (name, per_task, checks, per_item, lease_minutes,
                                        completion_url, code, secret, open)
  VALUES (p_name, p_per_task, p_checks, p_per_item, p_lease_minutes, p_completion_url,
          p_code, p_secret, p_open)
  ON CONFLICT (name) DO UPDATE SET per_task = EXCLUDED.per_task, checks = EXCLUDED.checks,
    per_item = EXCLUDED.per_item, lease_minutes = EXCLUDED.lease_minutes,
    completion_url = EXCLUDED.completion_url, open = EXCLUDED.open;
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
  simrate.web_expire(text, text, double precision), simrate.web_refuse(text, integer),
  simrate.web_open_study(text), simrate.web_lease(text, text, text, text),
  simrate.web_task(text, text), simrate.web_rate(text, text, text, integer, integer),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text),
  simrate.web_login(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.web_study(text), simrate.web_lease(text, text, text, text),
  simrate.web_task(text, text), simrate.web_rate(text, text, text, integer, integer)
  TO @web;
GRANT EXECUTE ON FUNCTION simrate.web_study(text),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text),
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
            for text in (WEB_TABLES_SQL, WEB_FUNCTIONS_SQL, WEB_FLUSH_SQL)]
