"""The hub's web functions that lease tasks (see web.py for the roles and tables): the
same rules as the file's (app/core/team/web_tasks/ and crowdweb/flood.py): a lease is short
until its first rating; a task never rated is dropped without a trace (no rater row, no
change); a live task is the cookie's; limits on tasks without a rating per address and in
total; a worker who finished a task of the study gets it back (the page shows the code)."""

from __future__ import annotations

from simrate.core.base.rules import WORKER_OF_OTHER_KIND
from simrate.core.team.crowdweb.flood import (
    EVICT_AFTER,
    FIRST_RATING_MINUTES,
    UNRATED_LEAST,
    UNRATED_PER_ADDRESS,
    UNRATED_SHARE,
)
from simrate.hub.schema.names import quote_literal
from simrate.hub.schema.rules_sql import render

WEB_LEASE_SQL = r"""
DROP FUNCTION IF EXISTS simrate.web_study(text);
CREATE FUNCTION simrate.web_study(p_name text)
RETURNS TABLE (name text, per_task integer, checks integer, per_item integer,
               lease_minutes double precision, completion_url text, code text, secret text,
               open boolean, options text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT s.name, s.per_task, s.checks, s.per_item, s.lease_minutes, s.completion_url,
         s.code, s.secret, s.open, s.options FROM simrate.web_studies s WHERE s.name = p_name;
END $$;

DROP FUNCTION IF EXISTS simrate.web_lease_row(text, text);
CREATE FUNCTION simrate.web_lease_row(p_study text, p_task text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, session text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT t.task, t.worker, t.cookie, t.token, t.state,
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task),
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NOT NULL),
         t.expires_at, t.session
  FROM simrate.web_tasks t WHERE t.study = p_study AND t.task = p_task;
END $$;

-- the tasks' unrated slots stop counting in the pool (rows locked in one order by every
-- transaction: no deadlock between them); with p_drop, the tasks (never rated) go too
CREATE OR REPLACE FUNCTION simrate.web_release(p_study text, p_tasks text[], p_drop boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ids text[];
  counts integer[];
BEGIN
  SELECT array_agg(q.item_id ORDER BY q.item_id), array_agg(q.n ORDER BY q.item_id)
  INTO ids, counts FROM (
    SELECT s.item_id, count(*)::integer AS n FROM simrate.web_slots s
    WHERE s.study = p_study AND s.task = ANY (p_tasks) AND NOT s.is_check
      AND s.rated_at IS NULL GROUP BY s.item_id) q;
  IF ids IS NOT NULL THEN
    PERFORM 1 FROM simrate.web_pool p WHERE p.study = p_study AND p.item_id = ANY (ids)
    ORDER BY p.item_id FOR UPDATE;
    UPDATE simrate.web_pool p SET used = p.used - u.n
    FROM unnest(ids, counts) AS u(item_id, n)
    WHERE p.study = p_study AND p.item_id = u.item_id;
  END IF;
  IF p_drop THEN
    DELETE FROM simrate.web_slots s WHERE s.study = p_study AND s.task = ANY (p_tasks);
    DELETE FROM simrate.web_tasks t WHERE t.study = p_study AND t.task = ANY (p_tasks);
  END IF;
END $$;

-- leases past their time go back to the pool: a task with ratings is 'expired' (they
-- stay), one without is dropped. p_worker NULL: any worker's, skipping tasks another
-- transaction holds; else that worker's, waiting for them.
DROP FUNCTION IF EXISTS simrate.web_expire(text, text, double precision);
CREATE FUNCTION simrate.web_expire(p_study text, p_worker text, p_now double precision)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tasks_ text[];
  rated_ text[];
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
  SELECT array_agg(DISTINCT s.task) INTO rated_ FROM simrate.web_slots s
  WHERE s.study = p_study AND s.task = ANY (tasks_) AND s.rated_at IS NOT NULL;
  rated_ := coalesce(rated_, '{}'::text[]);
  UPDATE simrate.web_tasks t SET state = 'expired'
  WHERE t.study = p_study AND t.task = ANY (rated_);
  PERFORM simrate.web_release(p_study, rated_, false);
  PERFORM simrate.web_release(p_study, ARRAY(SELECT unnest(tasks_) EXCEPT
                                             SELECT unnest(rated_)), true);
END $$;

CREATE OR REPLACE FUNCTION simrate.web_refuse(message text, status integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'SR' || status::text;
END $$;

CREATE OR REPLACE FUNCTION simrate.web_open_study(p_study text)
RETURNS simrate.web_studies
LANGUAGE plpgsql STABLE AS $$
DECLARE
  st simrate.web_studies;
BEGIN
  SELECT * INTO st FROM simrate.web_studies WHERE name = p_study;
  IF NOT FOUND THEN
    PERFORM @refuse:no_study;
  END IF;
  IF NOT st.open THEN
    PERFORM @refuse:closed;
  END IF;
  RETURN st;
END $$;

-- the most tasks without a rating the study holds at once, a share of its tasks (from
-- the pool's size that web_set_study keeps: no pair counted on a start)
DROP FUNCTION IF EXISTS simrate.web_unrated_cap(simrate.web_studies, integer);
CREATE OR REPLACE FUNCTION simrate.web_unrated_cap(st simrate.web_studies)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN greatest(@least, ceil(ceil(st.pool_size::double precision * st.per_item
                                    / greatest(1, st.per_task)) * @share))::integer;
END $$;

-- the tasks of a study leased and still without a rating (web.py: web_unrated)
CREATE OR REPLACE FUNCTION simrate.web_unrated_count(p_study text)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(u.n), 0)::integer FROM simrate.web_unrated u
          WHERE u.study = p_study);
END $$;
REVOKE ALL ON FUNCTION simrate.web_unrated_count(text) FROM PUBLIC;

-- the limits on tasks without a rating (crowdweb/flood.py): per address, and in total a share
-- of the study's tasks, the oldest of which is given up once it had its time
CREATE OR REPLACE FUNCTION simrate.web_make_room(st simrate.web_studies, p_address text,
                                                 p_now double precision)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  unrated integer;
  slack integer;
  oldest simrate.web_tasks;
BEGIN
  IF p_address <> '' AND (SELECT count(*) FROM simrate.web_tasks t
      WHERE t.study = st.name AND t.state = 'leased' AND t.address = p_address
        AND t.first_rated_at IS NULL) >= @per_address THEN
    PERFORM @refuse:address_full;
  END IF;
  unrated := simrate.web_unrated_count(st.name);
  IF unrated < @least THEN
    RETURN;
  END IF;
  -- far below the cap, starts go on side by side: leases under way at once (at most one
  -- per connection) cannot pass it together. A study's starts one at a time on every
  -- start made a burst of arrivals queue (bench_web.py: 1,000 workers in 10 s).
  slack := current_setting('max_connections')::integer;
  IF unrated + slack < simrate.web_unrated_cap(st) THEN
    RETURN;
  END IF;
  -- near the cap, the study's starts one at a time (counted again once the lock is held)
  PERFORM pg_advisory_xact_lock(@web_lock, hashtext('room|' || st.name));
  unrated := simrate.web_unrated_count(st.name);
  IF unrated < simrate.web_unrated_cap(st) THEN
    RETURN;
  END IF;
  SELECT * INTO oldest FROM simrate.web_tasks t
  WHERE t.study = st.name AND t.state = 'leased' AND t.leased_at <= p_now - @evict_after
    AND t.first_rated_at IS NULL
  ORDER BY t.leased_at LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    PERFORM @refuse:busy;
  END IF;
  PERFORM simrate.web_release(st.name, ARRAY[oldest.task], true);
END $$;

-- the stored name of the crowd worker of this worker id's key (`CAROL` is `carol`; an id
-- never seen: as given, the first rating claims it); the key of a person or machine
-- rater: refused, naming the kind (one namespace, SQLSTATE SR403)
CREATE OR REPLACE FUNCTION simrate.web_worker_name(p_worker text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  held simrate.annotators;
BEGIN
  -- two lookups, each by its index (one query with OR read every rater)
  SELECT * INTO held FROM simrate.annotators a WHERE a.name = p_worker;
  IF NOT FOUND THEN
    SELECT * INTO held FROM simrate.annotators a
    WHERE a.key = simrate.rater_key(p_worker, NULL);
  END IF;
  IF NOT FOUND THEN
    RETURN p_worker;
  END IF;
  IF held.kind IS DISTINCT FROM 'crowd' THEN
    PERFORM simrate.web_refuse(replace(@worker_of_other_kind, '{held}',
                                       simrate.kind_words(held.kind)), @other_kind_status);
  END IF;
  RETURN held.name;
END $$;

-- the worker's live task in the study (the cookie's), or their finished one, or a new one
-- of K items and C check items
DROP FUNCTION IF EXISTS simrate.web_lease(text, text, text, text);
CREATE OR REPLACE FUNCTION simrate.web_lease(p_study text, p_worker text, p_session text,
                                             p_cookie text, p_address text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, session text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  st simrate.web_studies;
  now_ double precision := extract(epoch FROM clock_timestamp());
  live simrate.web_tasks;
  picked text[];
  held text[];
  checks_ text[];
  slot_items text[];
  slot_checks boolean[];
  one text;
  pos integer;
  number bigint;
  new_task text;
BEGIN
  st := simrate.web_open_study(p_study);
  IF p_worker IS NULL OR p_worker !~ @pattern:WORKER_ID THEN
    PERFORM @refuse:worker_id;
  END IF;
  p_worker := simrate.web_worker_name(p_worker);  -- one namespace across kinds
  p_session := CASE WHEN coalesce(p_session, '') ~ @pattern:SESSION_ID
                    THEN coalesce(p_session, '') ELSE '' END;
  p_address := left(coalesce(p_address, ''), @number:MAX_ADDRESS_CHARS);
  -- one worker's leases one at a time (two tabs pressing Start at once get one task)
  PERFORM pg_advisory_xact_lock(@web_lock, hashtext(p_study || '|' || p_worker));
  PERFORM simrate.web_expire(p_study, NULL, now_);
  PERFORM simrate.web_expire(p_study, p_worker, now_);
  SELECT * INTO live FROM simrate.web_tasks t
  WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'leased';
  IF FOUND THEN
    IF coalesce(p_cookie, '') <> '' AND live.cookie = p_cookie THEN
      RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, live.task);
      RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM simrate.web_slots s WHERE s.study = p_study
               AND s.task = live.task AND s.rated_at IS NOT NULL) THEN
      PERFORM @refuse:open_elsewhere;
    END IF;
    -- never rated: another browser with the worker's id cannot keep the worker out
    PERFORM simrate.web_release(p_study, ARRAY[live.task], true);
  END IF;
  SELECT * INTO live FROM simrate.web_tasks t
  WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'done'
  ORDER BY t.done_at DESC LIMIT 1;
  IF FOUND THEN  -- finished: the same task again, whose page shows the code
    RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, live.task);
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.people p WHERE p.annotator = p_worker) THEN
    PERFORM @refuse:person;
  END IF;
  PERFORM simrate.web_make_room(st, p_address, now_);
  -- the pairs of the worker's live tasks in other studies (mostly none), read apart: the
  -- pick is planned again at each start (its plan depends on the study's sizes), and
  -- with two tables fewer that takes 0.15 ms, not 0.35 (3,000 pairs, 100 starts)
  held := ARRAY(SELECT s.item_id FROM simrate.web_tasks t JOIN simrate.web_slots s
                ON s.study = t.study AND s.task = t.task
                WHERE t.worker = p_worker AND t.state = 'leased');
  SELECT array_agg(q.item_id ORDER BY q.used, q.rank) INTO picked FROM (
    SELECT p.item_id, p.used, p.rank FROM simrate.web_pool p
    WHERE p.study = p_study AND NOT p.is_check AND p.used < st.per_item
      AND NOT EXISTS (SELECT 1 FROM simrate.ratings r
                      WHERE r.item_id = p.item_id AND r.annotator = p_worker)
      AND p.item_id <> ALL (held)
    ORDER BY p.used, p.rank LIMIT st.per_task
    FOR UPDATE OF p SKIP LOCKED) q;
  IF picked IS NULL THEN
    PERFORM @refuse:none_left;
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
  number := nextval('simrate.web_task_numbers');
  new_task := 'w' || lpad(number::text, 6, '0');
  IF number >= 64 AND number & (number - 1) = 0 THEN
    -- the web tables grow from nothing when a study opens: plans made while they were
    -- small cost 30-150 ms a start (bench_web.py, 1,000 arrivals in 10 s) until the
    -- autovacuum analyzes them, minutes later; so at 64, 128, 256, ... tasks, here
    ANALYZE simrate.web_tasks, simrate.web_slots;
  END IF;
  INSERT INTO simrate.web_tasks (study, task, worker, session, cookie, token, state,
                                 leased_at, expires_at, address)
  VALUES (p_study, new_task, p_worker, p_session,
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          'leased', now_, now_ + least(st.lease_minutes, @first_rating) * 60, p_address);
  INSERT INTO simrate.web_slots (study, task, slot, item_id, is_check)
  SELECT p_study, new_task, n, slot_items[n], slot_checks[n]
  FROM generate_subscripts(slot_items, 1) AS n;
  UPDATE simrate.web_pool p SET used = p.used + 1
  WHERE p.study = p_study AND p.item_id = ANY (picked);
  RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, new_task);
END $$;
"""


def lease_sql() -> str:
    """The functions above with the limits of crowdweb/flood.py and the rules of
    simrate.core.base.rules (patterns, refusals) written in."""
    return (render(WEB_LEASE_SQL).replace("@per_address", str(UNRATED_PER_ADDRESS))
            .replace("@least", str(UNRATED_LEAST)).replace("@share", repr(UNRATED_SHARE))
            .replace("@evict_after", repr(EVICT_AFTER))
            .replace("@first_rating", repr(FIRST_RATING_MINUTES))
            .replace("@worker_of_other_kind", quote_literal(WORKER_OF_OTHER_KIND[1]))
            .replace("@other_kind_status", str(WORKER_OF_OTHER_KIND[0])))
