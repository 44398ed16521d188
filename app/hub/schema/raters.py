"""One rater identity on the hub: every rater (person, crowd worker, machine rater) is a row
of `simrate.annotators` with a unique identity key, whatever its kind, and the hub checks
it itself, since replicas lag behind it.

The key is `simrate.core.base.names.rater_key` (NFKC, case folded). PostgreSQL cannot compute
it alike everywhere (`lower` follows the database's locale, and there is no case folding
before PostgreSQL 18), so the hub computes it only for names in printable ASCII, where it
is plain lower case (in the C collation: a Turkish locale would lower `I` to `ı`), and
takes it from the client for the others: organizers' clients (`team add`, `team sync`,
`team publish`) send it; a web worker id is ASCII by rule. A row without a key is
refused. `simrate.claim_rater` is the one way a rater is added: it takes the rater of the
key when its kind matches and refuses another kind with one line naming it. Rows are never
deleted on the hub, so a name, once a rater's, stays theirs.
"""

from __future__ import annotations

from simrate.core.base import rules
from simrate.hub.schema.names import fill, quote_literal
from simrate.hub.schema.rules_sql import kind_case, render

#: Advisory lock class of rater claims (two-key locks: one key per identity).
RATER_LOCK = 7305822

RATERS_SQL = r"""
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS key text;

CREATE OR REPLACE FUNCTION simrate.rater_key(p_name text, p_key text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE WHEN p_name ~ '^[ -~]*$'
    THEN lower(regexp_replace(btrim(p_name), ' +', ' ', 'g') COLLATE "C") ELSE p_key END
$$;

CREATE OR REPLACE FUNCTION simrate.kind_words(p_kind text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT @kind_words
$$;

CREATE OR REPLACE FUNCTION simrate.keep_key() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF (TG_OP = 'INSERT' OR NEW.name IS DISTINCT FROM OLD.name)
      AND char_length(NEW.name) > @number:MAX_RATER_CHARS THEN
    RAISE EXCEPTION USING MESSAGE = format(@too_long, char_length(NEW.name));
  END IF;
  IF (TG_OP = 'INSERT' OR NEW.name IS DISTINCT FROM OLD.name)
      AND NEW.name ~ @text:ASCII_CONTROL THEN
    RAISE EXCEPTION USING MESSAGE = format(@hidden, 'U+' || upper(lpad(to_hex(ascii(
      substring(NEW.name FROM @text:ASCII_CONTROL))), 4, '0')));
  END IF;
  NEW.key := simrate.rater_key(NEW.name, NEW.key);
  IF NEW.key IS NULL THEN
    RAISE EXCEPTION 'the rater name % is not ASCII and came without its identity key; '
      'use a simrate that sends it', quote_literal(NEW.name);
  END IF;
  RETURN NEW;
END $$;

-- keys of the rows written before this rule: ASCII names here (the first of two names
-- with one key keeps it), others by the publisher (publish.py, fill_keys)
UPDATE simrate.annotators a SET key = k.key FROM (
  SELECT name, simrate.rater_key(name, NULL) AS key,
         row_number() OVER (PARTITION BY simrate.rater_key(name, NULL) ORDER BY seq) AS n
  FROM simrate.annotators WHERE key IS NULL AND name ~ '^[ -~]*$') k
WHERE a.name = k.name AND k.n = 1
  AND NOT EXISTS (SELECT 1 FROM simrate.annotators b WHERE b.key = k.key);
CREATE UNIQUE INDEX IF NOT EXISTS annotators_key ON simrate.annotators (key);
DROP TRIGGER IF EXISTS keep_key ON simrate.annotators;
CREATE TRIGGER keep_key BEFORE INSERT OR UPDATE OF name, key ON simrate.annotators
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_key();

-- a rating pushed under another spelling of a rater's name (`ANA` from a replica that had
-- not pulled `ana` yet) goes under the rater's name: one rater, one set of ratings
CREATE OR REPLACE FUNCTION simrate.rating_rater() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  held text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = NEW.annotator) THEN
    SELECT a.name INTO held FROM simrate.annotators a
    WHERE a.key = simrate.rater_key(NEW.annotator, NULL);
    NEW.annotator := coalesce(held, NEW.annotator);
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS rating_rater ON simrate.ratings;
CREATE TRIGGER rating_rater BEFORE INSERT ON simrate.ratings
  FOR EACH ROW EXECUTE FUNCTION simrate.rating_rater();

-- the rater `p_name` names (its key: `ANA` is `ana`), added with kind `p_kind` when no
-- rater has the key; another kind's is refused, naming that kind (SQLSTATE SR403)
CREATE OR REPLACE FUNCTION simrate.claim_rater(p_name text, p_key text, p_kind text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  k text := simrate.rater_key(p_name, p_key);
  held simrate.annotators;
BEGIN
  IF k IS NULL THEN
    RAISE EXCEPTION 'the rater name % came without its identity key', quote_literal(p_name);
  END IF;
  PERFORM pg_advisory_xact_lock(@rater_lock, hashtext(k));
  SELECT * INTO held FROM simrate.annotators a WHERE a.key = k;
  IF NOT FOUND THEN
    SELECT * INTO held FROM simrate.annotators a WHERE a.name = p_name;
  END IF;
  IF FOUND THEN
    IF held.kind IS DISTINCT FROM p_kind THEN
      RAISE EXCEPTION USING ERRCODE = 'SR403', MESSAGE = format(@kind_clash,
        quote_literal(held.name), simrate.kind_words(held.kind), @kind_ratings);
    END IF;
    RETURN held.name;
  END IF;
  INSERT INTO simrate.annotators (name, kind, key) VALUES (p_name, p_kind, k);
  RETURN p_name;
END $$;
REVOKE ALL ON FUNCTION simrate.claim_rater(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.claim_rater(text, text, text) TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.rater_key(text, text), simrate.kind_words(text)
  TO @organizers, @annotators;
"""


def raters_sql(roles: dict[str, str]) -> str:
    """The identity rule's SQL (run as the owner role, after the tables)."""
    clash = rules.KIND_CLASH.format(name="%s", held="%s", wanted="%s")
    too_long = rules.RATER_TOO_LONG.format(what="annotator name", limit=rules.MAX_RATER_CHARS,
                                           given="%s")
    hidden = rules.RATER_HIDDEN.format(what="annotator name", char="%s")
    text = (RATERS_SQL.replace("@rater_lock", str(RATER_LOCK))
            .replace("@kind_words", kind_case("p_kind", rules.KIND_WORDS))
            .replace("@kind_ratings", kind_case("p_kind", rules.KIND_RATINGS))
            .replace("@kind_clash", quote_literal(clash))
            .replace("@too_long", quote_literal(too_long))
            .replace("@hidden", quote_literal(hidden)))
    return fill(render(text), roles)


def fill_keys(conn, key_of) -> None:
    """Give the hub's raters written before the rule, whose names are not ASCII, their keys
    (`key_of`: simrate.core.base.names.rater_key), and every person of the hub a rater row; a
    key another rater holds already is left out (that row keeps no key)."""
    rows = conn.execute("SELECT name FROM simrate.annotators WHERE key IS NULL").fetchall()
    for (name,) in rows:
        conn.execute("UPDATE simrate.annotators SET key = %s WHERE name = %s AND NOT EXISTS "
                     "(SELECT 1 FROM simrate.annotators WHERE key = %s)",
                     (key_of(name), name, key_of(name)))
    people = conn.execute("SELECT annotator FROM simrate.people p WHERE NOT EXISTS (SELECT 1 "
                          "FROM simrate.annotators a WHERE a.name = p.annotator)").fetchall()
    for (name,) in people:
        conn.execute("INSERT INTO simrate.annotators (name, kind, key) VALUES (%s, 'human', %s) "
                     "ON CONFLICT DO NOTHING", (name, key_of(name)))
