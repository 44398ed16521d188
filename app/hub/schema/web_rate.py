"""The hub's web functions that show a task's pairs and rate them (see web.py for the roles
and tables): the rules of the file's web_tasks.rate_slot. A slot rated already takes a new
score while the lease holds (the later edit wins); the task's first rating adds the worker
as a crowd rater (claimed once per task) and gives the lease its full length."""

from __future__ import annotations

from simrate.hub.schema.names import group_sql
from simrate.hub.schema.rules_sql import render

WEB_RATE_SQL = r"""
-- the task a cookie names, with its first unrated slot and that item's texts
DROP FUNCTION IF EXISTS simrate.web_task(text, text);
CREATE FUNCTION simrate.web_task(p_study text, p_cookie text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, session text, slot integer,
               item_left text, item_right text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT l.*, n.slot, n."left", n."right"
  FROM simrate.web_tasks t
  CROSS JOIN LATERAL simrate.web_lease_row(t.study, t.task) l
  LEFT JOIN LATERAL (
    SELECT s.slot, i."left", i."right" FROM simrate.web_slots s
    JOIN simrate.items i ON i.id = s.item_id
    WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NULL
    ORDER BY s.slot LIMIT 1) n ON true
  WHERE t.study = p_study AND t.cookie = p_cookie;
END $$;

-- the task a cookie names, with one of its slots, that item's texts and the score code
-- saved for it (NULL: unrated)
CREATE OR REPLACE FUNCTION simrate.web_slot(p_study text, p_cookie text, p_slot integer)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, session text, slot integer,
               item_left text, item_right text, code integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT l.*, n.slot, n."left", n."right", n.code
  FROM simrate.web_tasks t
  CROSS JOIN LATERAL simrate.web_lease_row(t.study, t.task) l
  LEFT JOIN LATERAL (
    SELECT s.slot, i."left", i."right",
           (SELECT r.code FROM simrate.ratings r WHERE s.rated_at IS NOT NULL
            AND r.item_id = s.item_id AND r.annotator = t.worker) AS code
    FROM simrate.web_slots s JOIN simrate.items i ON i.id = s.item_id
    WHERE s.study = t.study AND s.task = t.task AND s.slot = p_slot) n ON true
  WHERE t.study = p_study AND t.cookie = p_cookie;
END $$;

-- one rating (or a correction) for the worker of the task that the cookie and token name,
-- and the page that follows it, in one call and one commit: the task after the rating,
-- its next unrated slot with that item's texts (NULL when none is left), and the study
-- (serve renders the next page from this row alone). The task's row is locked first, so
-- its slots are read once, before the writes: the slot, the task's counts and its next
-- unrated slot but this one (after the rating, the next of all). Every statement of a
-- rating (its triggers' too) finds its rows by key, so each is planned once per
-- connection (generic plans): PostgreSQL's default planned the read of the task's slots
-- again and again (1,612 plans in 17,851 ratings, 0.018 ms a rating, bench_web.py).
DROP FUNCTION IF EXISTS simrate.web_rate_row(text, text, text, integer, integer);
CREATE OR REPLACE FUNCTION simrate.web_rate_show(p_study text, p_cookie text, p_token text,
                                                 p_slot integer, p_code integer)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, session text, slot integer,
               item_left text, item_right text, code integer, name text, per_task integer,
               checks integer, per_item integer, lease_minutes double precision,
               completion_url text, study_code text, secret text, open boolean,
               options text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  t simrate.web_tasks;
  st simrate.web_studies;
  now_ double precision := extract(epoch FROM clock_timestamp());
  s record;
  took double precision;
BEGIN
  -- serve announces the rating after the commit (announce_writes, tables.py); the
  -- setting ends with the call (the function has a SET clause)
  PERFORM set_config('simrate.announce_later', 'on', true);
  SELECT * INTO t FROM simrate.web_tasks w
  WHERE w.study = p_study AND w.cookie = p_cookie FOR UPDATE;
  IF NOT FOUND OR t.token IS DISTINCT FROM p_token THEN
    PERFORM @refuse:expired_page;
  END IF;
  st := simrate.web_open_study(p_study);
  IF t.state NOT IN ('leased', 'done') OR t.expires_at <= now_ THEN
    PERFORM @refuse:time_out;
  END IF;
  SELECT w.item_id, w.rated_at, a.n_size, a.n_rated, a.last_at, a.following,
         EXISTS (SELECT 1 FROM simrate.people p WHERE p.annotator = t.worker) AS person,
         w.rated_at IS NULL AND EXISTS (SELECT 1 FROM simrate.ratings r
                                        WHERE r.item_id = w.item_id
                                          AND r.annotator = t.worker) AS rated_before
  INTO s
  FROM simrate.web_slots w,
       LATERAL (SELECT count(*)::integer AS n_size, count(o.rated_at)::integer AS n_rated,
                       max(o.rated_at) AS last_at,
                       min(o.slot) FILTER (WHERE o.rated_at IS NULL AND o.slot <> p_slot)
                         AS following
                FROM simrate.web_slots o WHERE o.study = p_study AND o.task = t.task) a
  WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
  IF NOT FOUND THEN
    PERFORM @refuse:no_slot;
  END IF;
  IF p_code IS NULL THEN
    PERFORM @refuse:score;
  END IF;
  IF s.person THEN
    PERFORM @refuse:person;
  END IF;
  IF s.rated_at IS NOT NULL THEN  -- a correction: the later edit wins (put_rating, the door)
    PERFORM simrate.put_rating(r.item_id, r.annotator, p_code, r.note, r.skipped, r.seconds,
                               greatest(now_, r.updated_at + @number:LATER_STAMP_STEP))
    FROM simrate.ratings r
    WHERE r.item_id = s.item_id AND r.annotator = t.worker AND r.code IS DISTINCT FROM p_code;
  ELSE
    IF s.rated_before THEN
      PERFORM @refuse:rated;
    END IF;
    took := round(greatest(0, now_ - greatest(t.leased_at, coalesce(s.last_at, t.leased_at)))
                  ::numeric, 3);
    IF s.n_rated = 0 THEN
      -- once per task: the worker's row, of kind crowd, then stays (no kind changes, no
      -- row is deleted), and a person of that name is refused above at every rating
      PERFORM simrate.web_worker_name(t.worker);  -- one namespace: SR403 for another kind's
      PERFORM simrate.claim_rater(t.worker, NULL, 'crowd');  -- the one way a rater is added
    END IF;
    PERFORM simrate.put_rating(s.item_id, t.worker, p_code, '', false, took, now_);
    UPDATE simrate.web_slots w SET rated_at = now_, seconds = took
    WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
    IF s.n_rated = 0 OR s.following IS NULL THEN
      -- the first rating: the lease runs its full length from its start, and the task no
      -- longer counts among those without a rating (web_make_room); the last: done
      UPDATE simrate.web_tasks w SET
        first_rated_at = CASE WHEN s.n_rated = 0 THEN now_ ELSE w.first_rated_at END,
        expires_at = CASE WHEN s.n_rated = 0 AND w.state = 'leased'
                          THEN w.leased_at + st.lease_minutes * 60 ELSE w.expires_at END,
        state = CASE WHEN s.following IS NULL THEN 'done' ELSE w.state END,
        done_at = CASE WHEN s.following IS NULL THEN coalesce(w.done_at, now_)
                       ELSE w.done_at END
      WHERE w.study = p_study AND w.task = t.task RETURNING * INTO t;
    END IF;
    s.n_rated := s.n_rated + 1;
  END IF;
  -- a correction on a task still leased with every slot rated (this function never
  -- leaves one so; a hub's older code may have): finished, as a rating would
  IF s.following IS NULL AND t.state <> 'done' THEN
    UPDATE simrate.web_tasks w SET state = 'done', done_at = coalesce(w.done_at, now_)
    WHERE w.study = p_study AND w.task = t.task RETURNING * INTO t;
  END IF;
  RETURN QUERY SELECT t.task, t.worker, t.cookie, t.token, t.state, s.n_size, s.n_rated,
    t.expires_at, t.session, n.slot, n."left", n."right", NULL::integer, st.name,
    st.per_task, st.checks, st.per_item, st.lease_minutes, st.completion_url, st.code,
    st.secret, st.open, st.options
  FROM (VALUES (1)) AS one (x) LEFT JOIN LATERAL (
    SELECT w.slot, i."left", i."right" FROM simrate.web_slots w
    JOIN simrate.items i ON i.id = w.item_id
    WHERE w.study = p_study AND w.task = t.task AND w.slot = s.following) n ON true;
END $$;

@group
-- the same rating for a serve made before web_rate_show: the next unrated slot's number,
-- or 'done'; its news sent in its own transaction, as that serve expects
CREATE OR REPLACE FUNCTION simrate.web_rate(p_study text, p_cookie text, p_token text,
                                            p_slot integer, p_code integer)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  r record;
BEGIN
  SELECT * INTO r FROM simrate.web_rate_show(p_study, p_cookie, p_token, p_slot, p_code);
  PERFORM simrate.announce_writes(ARRAY[r.worker]);
  RETURN coalesce(r.slot::text, 'done');
END $$;
"""


# several workers' ratings in one call and one commit (serve's groups: names.group_sql),
# each answer web_rate_show's row as an object
GROUP_SQL = group_sql("web_rate_shows", "SELECT to_jsonb(s) FROM simrate.web_rate_show("
                      "c ->> 0, c ->> 1, c ->> 2, (c ->> 3)::integer, (c ->> 4)::integer) s")


def rate_sql() -> str:
    """The functions above with the web refusals of simrate.core.base.rules written in."""
    return render(WEB_RATE_SQL.replace("@group", GROUP_SQL))
