"""Names the hub's SQL is written with: version, channel, lock keys, limits, role names,
quoting, and `fill`, which puts them into a template (`@owner`, `@annotators_lit`, ...)."""

from __future__ import annotations

import hashlib
import re

#: Version of the hub schema; a hub made by a newer simrate is refused with a clear line.
HUB_SCHEMA_VERSION = 4  # 3: one rater identity (raters.py); 4: stamps without a lock
#: NOTIFY channel for items and settings, which every role reads (notifications are per
#: database); other writes go to secret channels (`simrate.my_channel()`).
CHANNEL = "simrate"
#: Connections one annotator's login may hold at once (`CONNECTION LIMIT`): a window
#: holds one only during a round, `team sync` one, so two machines of one person fit;
#: organizers have no limit, so annotators can never take their slots.
ANNOTATOR_CONNECTION_LIMIT = 2
#: Low bits of a stamp that order the writes of one transaction (tables.py, next_stamp):
#: the high bits are the transaction's id. A transaction may take this many stamps while
#: the hub takes others before two of its own could share a number.
STAMP_BITS = 24
#: Tables a replica pulls from, in the order it applies them.
PULLED_TABLES = ("settings", "items", "annotators", "ratings", "adjudications")


def quote_ident(name: str) -> str:
    """A PostgreSQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """A PostgreSQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def role_names(dbname: str) -> dict[str, str]:
    """The owner and group role names of the hub in database `dbname`.

    Role names are shared by the whole server, so they carry the database's name and a
    short hash of it (two databases whose names differ only in punctuation stay apart).
    """
    slug = re.sub(r"[^a-z0-9]+", "_", dbname.lower()).strip("_")[:20] or "db"
    tag = hashlib.sha1(dbname.encode("utf-8")).hexdigest()[:6]
    prefix = f"simrate_{slug}_{tag}"
    return {"owner": f"{prefix}_owner", "annotators": f"{prefix}_annotators",
            "organizers": f"{prefix}_organizers"}


def login_name(person: str) -> str:
    """A login role name for a person: lower case letters, digits and underscores."""
    slug = re.sub(r"[^a-z0-9]+", "_", person.lower()).strip("_")[:40]
    if not slug:
        slug = "person_" + hashlib.sha1(person.encode("utf-8")).hexdigest()[:8]
    return slug if slug[0].isalpha() else "p_" + slug


#: Seconds a rating's edit time may lie ahead of the hub's clock; a later stamp (a machine
#: whose clock is far ahead) is replaced by the hub's time.
MAX_CLOCK_LEAD = 60


def fill(template: str, roles: dict[str, str]) -> str:
    """The template with role names, the channel, the limits and the stamp's bits put in."""
    text = template
    for key, name in roles.items():
        text = text.replace(f"@{key}_lit", quote_literal(name))
        text = text.replace(f"@{key}", quote_ident(name))
    text = text.replace("@channel", quote_literal(CHANNEL))
    text = text.replace("@max_lead", str(MAX_CLOCK_LEAD))
    text = text.replace("@annotator_limit", str(ANNOTATOR_CONNECTION_LIMIT))
    return text.replace("@stamp_bits", str(STAMP_BITS))


def group_sql(name: str, one_call: str) -> str:
    """A function `simrate.<name>(p_calls jsonb)` that makes several calls in one
    transaction, so that they share one commit (`simrate serve` groups the sync rounds
    and the crowd ratings that reach it together: web/hub_pool.py). Each call runs in a
    subtransaction of its own: one refused (a revoked link, a score off the scale, a lock
    given up) is undone alone and answers {"failed": its SQLSTATE, "message": its text};
    the others go ahead. `one_call` is the expression of one call's answer (jsonb) from
    `c`, its element of p_calls. Answers come in the order of the calls. With the caller's
    rights: a login that may not make a call alone may not make it in a group. Dropped
    and made again at each publish (its grants follow it), so no change of it ever stops
    a hub from being published again."""
    return f"""
DROP FUNCTION IF EXISTS simrate.{name}(jsonb);
CREATE FUNCTION simrate.{name}(p_calls jsonb)
RETURNS jsonb LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  answers jsonb := '[]';
  one jsonb;
  c jsonb;
BEGIN
  FOR c IN SELECT value FROM jsonb_array_elements(p_calls) LOOP
    BEGIN
      one := ({one_call});
    EXCEPTION WHEN OTHERS THEN
      one := jsonb_build_object('failed', SQLSTATE, 'message', SQLERRM);
    END;
    answers := answers || jsonb_build_array(coalesce(one, '{{}}'));
  END LOOP;
  RETURN answers;
END $$;
"""
