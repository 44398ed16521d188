"""A write whose commit waits for the disk, for the web login (app/web/hub_backend.py).

A rating of the web page commits without waiting for the disk, so that the hub's write
lock (sequence stamps, tables.py) is not held over a flush; the page answers only after
`simrate.web_flush()`, in the same message, has committed: its commit is flushed, and with
it everything the log holds before it, the rating included. A commit that wrote nothing to
the log would not wait (PostgreSQL flushes only commits that wrote), so the function writes
one row per server connection: flushes never queue on each other's row locks.
"""

WEB_FLUSH_SQL = """
CREATE TABLE IF NOT EXISTS simrate.web_flushes (pid integer PRIMARY KEY, at timestamptz);
CREATE OR REPLACE FUNCTION simrate.web_flush() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  INSERT INTO simrate.web_flushes (pid, at) VALUES (pg_backend_pid(), now())
  ON CONFLICT (pid) DO UPDATE SET at = EXCLUDED.at
$$;
REVOKE ALL ON simrate.web_flushes FROM PUBLIC;
REVOKE ALL ON FUNCTION simrate.web_flush() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.web_flush() TO @web;
"""
