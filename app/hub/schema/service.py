"""The sync service's part of the hub (issue 33): annotators' rounds through `simrate serve`.

An annotator whose replica joined through a `serve` process never logs in to PostgreSQL:
the server holds a few warm connections as the hub's web login (hub/schema/web.py: no
privilege on any table, a CONNECTION LIMIT), and each round is one call of
`simrate.sync_round`, with the person's token. The function finds the person from the
token itself (only its SHA-256 is stored, `sync_tokens`), so neither the client's payload
nor the server names the person: a server that is not given a token cannot act for
anyone. Inside, it does what an annotator's own login may do and no more: it writes
ratings under the person's name only (the name comes from `people`, not from the
request), reads items without reference, metadata or source, and reads only the
person's own ratings. The hub's triggers (stamps, change log, NOTIFY, the later edit
wins, one rater identity) fire as for a direct write; `sync_acting` puts the person's
login in the stamps and the change log in place of the web login's, honoured only for the
web group (anyone may SET a custom setting; nobody else's stamps follow it).

A removed person (`team remove`: `people.removed_at`) or a revoked token is refused with
SQLSTATE SR401; a replica id of another login with SR403.
"""

from __future__ import annotations

from simrate.hub.schema.names import fill, group_sql

#: Rows of each table one call returns at most; the client asks again for the rest.
SYNC_PAGE = 5000
#: Connections the web login may hold (four `serve` processes of 4 each, and slack).
SERVICE_CONNECTION_LIMIT = 20

SERVICE_SQL = r"""
CREATE TABLE IF NOT EXISTS simrate.sync_tokens (
    token_hash text PRIMARY KEY, login text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), revoked_at timestamptz);
CREATE INDEX IF NOT EXISTS sync_tokens_login ON simrate.sync_tokens (login);
REVOKE ALL ON simrate.sync_tokens FROM PUBLIC;

CREATE OR REPLACE FUNCTION simrate.sync_acting() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  acting text := current_setting('simrate.acting_login', true);
BEGIN
  IF acting IS NOT NULL AND acting <> '' AND NEW.login = session_user
     AND pg_has_role(session_user, @web_lit, 'MEMBER') THEN
    NEW.login := acting;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION simrate.sync_acting() FROM PUBLIC;
-- after `stamp` (triggers of one event fire in name order); not even called when no
-- round set the setting (the function still checks who set it)
DROP TRIGGER IF EXISTS stamp_acting ON simrate.ratings;
CREATE TRIGGER stamp_acting BEFORE INSERT OR UPDATE ON simrate.ratings
  FOR EACH ROW WHEN (coalesce(current_setting('simrate.acting_login', true), '') <> '')
  EXECUTE FUNCTION simrate.sync_acting();
-- on the change log, only for entries made under the session's own login (log_refused's):
-- log_change copies the row's login, already the acting one
DROP TRIGGER IF EXISTS stamp_acting ON simrate.changes;
CREATE TRIGGER stamp_acting BEFORE INSERT ON simrate.changes
  FOR EACH ROW WHEN (coalesce(current_setting('simrate.acting_login', true), '') <> ''
                     AND NEW.login = session_user)
  EXECUTE FUNCTION simrate.sync_acting();

-- the annotator a token names: (login, name); SR401 when none (revoked, removed, forged)
CREATE OR REPLACE FUNCTION simrate.sync_person(p_token text, OUT person_login text,
                                               OUT person text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  SELECT p.login, p.annotator INTO person_login, person
  FROM simrate.sync_tokens t JOIN simrate.people p ON p.login = t.login
  WHERE t.token_hash = encode(sha256(convert_to(coalesce(p_token, ''), 'UTF8')), 'hex')
    AND t.revoked_at IS NULL AND p.removed_at IS NULL AND p.kind = 'annotator';
  IF person_login IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'SR401', MESSAGE =
      'this sync link is not valid on the hub: revoked, or its person removed';
  END IF;
END $$;

-- organizers: a token for an annotator of the hub (its SHA-256 given); returns the login
CREATE OR REPLACE FUNCTION simrate.sync_issue_token(p_person text, p_hash text)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found_login text;
BEGIN
  SELECT login INTO found_login FROM simrate.people
  WHERE annotator = p_person AND removed_at IS NULL AND kind = 'annotator';
  IF found_login IS NULL THEN
    RAISE EXCEPTION '% is not an annotator of this hub: add them first (simrate team add)',
      p_person;
  END IF;
  INSERT INTO simrate.sync_tokens (token_hash, login) VALUES (p_hash, found_login);
  RETURN found_login;
END $$;

-- organizers: revoke every token of a login; returns how many
CREATE OR REPLACE FUNCTION simrate.sync_revoke(p_login text) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH r AS (UPDATE simrate.sync_tokens SET revoked_at = now()
             WHERE login = p_login AND revoked_at IS NULL RETURNING 1)
  SELECT count(*)::integer FROM r
$$;

-- organizers: the web login's connection limit
CREATE OR REPLACE FUNCTION simrate.sync_service_limit(p_limit integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @weblogin_lit) THEN
    EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', @weblogin_lit, p_limit);
  END IF;
END $$;
"""

# the round: the person's ratings pushed (an undo only over the value this machine saw
# on the hub), the replica's ack raised, then a page of each table the person may read
ROUND_SQL = r"""
CREATE OR REPLACE FUNCTION simrate.sync_round(p_token text, p_replica uuid, p_upto bigint,
                                              p_ratings jsonb, p_marks jsonb)
RETURNS jsonb LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  who record;
  held text;
  before bigint;
  pushed integer := 0;
  cap bigint;
  r record;
BEGIN
  SELECT * INTO who FROM simrate.sync_person(p_token);
  PERFORM set_config('simrate.acting_login', who.person_login, true);
  -- serve announces the round's ratings after the commit (announce_writes, tables.py)
  PERFORM set_config('simrate.announce_later', 'on', true);
  SELECT a.login, a.acked INTO held, before  -- the one write of replicas (tables.py)
  FROM simrate.ack_replica(p_replica, p_upto, who.person_login) a;
  IF held IS DISTINCT FROM who.person_login THEN  -- (its raise undoes the ack)
    RAISE EXCEPTION USING ERRCODE = 'SR403', MESSAGE = 'this file''s replica id belongs '
      'to another login on the hub: join again to make a replica of your own';
  END IF;
  FOR r IN SELECT * FROM jsonb_to_recordset(coalesce(p_ratings, '[]')) AS x(
      item_id text, code integer, note text, skipped boolean, seconds double precision,
      updated_at double precision, undo boolean, seen jsonb) LOOP
    -- the direct push's door (later_wins.py): the same upsert, the same undo
    pushed := pushed + simrate.put_rating(r.item_id, who.person, r.code, coalesce(r.note, ''),
      coalesce(r.skipped, false), r.seconds, r.updated_at, coalesce(r.undo, false),
      (r.seen ->> 0)::integer, r.seen ->> 1, (r.seen ->> 2)::boolean);
  END LOOP;
  -- one cap for the three pulls: taken before their reads, so it is at or below each
  -- one's own (a transaction under it ended before any of them began)
  cap := simrate.stamp_cap();
  RETURN jsonb_build_object(
    'name', who.person, 'login', who.person_login, 'acked', before, 'pushed', pushed,
    'project_uuid', (SELECT value FROM simrate.hub WHERE key = 'project_uuid'),
    'hub_schema', (SELECT value FROM simrate.hub WHERE key = 'hub_schema'),
    'clock', extract(epoch FROM clock_timestamp()),
    -- a rating written is the hub's value (put_rating counts it): none is refused when
    -- every one pushed was written
    'refused', CASE WHEN pushed < jsonb_array_length(coalesce(p_ratings, '[]'))
                    THEN simrate.sync_refused(who.person, p_ratings) ELSE '[]' END,
    'settings', (SELECT coalesce(jsonb_agg(jsonb_build_array(key, value, seq) ORDER BY seq),
                                 '[]') FROM (
      SELECT key, value, seq FROM simrate.settings
      WHERE seq > coalesce((p_marks ->> 'settings')::bigint, 0)
        AND seq < cap ORDER BY seq LIMIT @page) s),
    'items', (SELECT coalesce(jsonb_agg(jsonb_build_array(id, "left", "right", dataset, genre,
                                        NULL, NULL, '', seq) ORDER BY seq), '[]') FROM (
      SELECT id, "left", "right", dataset, genre, seq FROM simrate.items
      WHERE seq > coalesce((p_marks ->> 'items')::bigint, 0)
        AND seq < cap ORDER BY seq LIMIT @page) i),
    'ratings', (SELECT coalesce(jsonb_agg(jsonb_build_array(item_id, annotator, code, note,
                skipped, seconds, updated_at, seq) ORDER BY seq), '[]') FROM (
      SELECT * FROM simrate.ratings WHERE annotator = who.person
        AND seq > coalesce((p_marks ->> 'ratings')::bigint, 0)
        AND seq < cap ORDER BY seq LIMIT @page) g));
END $$;

@group
-- the hub's rows, for the keys just pushed, whose value is not the one pushed (called
-- only when a rating pushed was not written)
CREATE OR REPLACE FUNCTION simrate.sync_refused(p_person text, p_ratings jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(jsonb_agg(jsonb_build_array(t.item_id, t.annotator, t.code, t.note,
                                    t.skipped, t.seconds, t.updated_at, t.seq)), '[]')
          FROM jsonb_to_recordset(p_ratings)
               AS k(item_id text, code integer, note text, skipped boolean)
          JOIN simrate.ratings t ON t.item_id = k.item_id AND t.annotator = p_person
          WHERE (t.code, t.note, t.skipped) IS DISTINCT FROM
                (k.code, coalesce(k.note, ''), coalesce(k.skipped, false)));
END $$;

REVOKE ALL ON FUNCTION simrate.sync_person(text), simrate.sync_issue_token(text, text),
  simrate.sync_revoke(text), simrate.sync_service_limit(integer),
  simrate.sync_round(text, uuid, bigint, jsonb, jsonb), simrate.sync_refused(text, jsonb),
  simrate.sync_rounds(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.sync_round(text, uuid, bigint, jsonb, jsonb),
  simrate.sync_rounds(jsonb) TO @web;
GRANT EXECUTE ON FUNCTION simrate.sync_issue_token(text, text), simrate.sync_revoke(text),
  simrate.sync_service_limit(integer) TO @organizers;
"""


# several annotators' rounds in one call and one commit (serve's groups: names.group_sql)
GROUP_SQL = group_sql("sync_rounds", "simrate.sync_round(c ->> 0, (c ->> 1)::uuid, "
                      "(c ->> 2)::bigint, c -> 3, c -> 4)")


def service_statements(roles: dict[str, str], web: dict[str, str]) -> list[str]:
    """The sync service's tables, functions and privileges (run as the owner role, after
    the web studies' part, whose roles it uses)."""
    names = {"weblogin": web["weblogin"], **roles, "web": web["web"]}
    return [fill(SERVICE_SQL, names),
            fill(ROUND_SQL.replace("@page", str(SYNC_PAGE)).replace("@group", GROUP_SQL),
                 names)]
