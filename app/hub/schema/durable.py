"""`simrate.web_flush()`: kept for `simrate serve` of the previous release only.

That release committed a web rating without waiting for the disk (so that the hub-wide lock
of its time was not held over a flush) and then called this function in the same message,
whose commit waited instead. This release needs neither: a rating is one statement whose
commit waits for the disk (app/web/hub_backend.py, app/web/sync_service.py). The function
writes one row per server connection, since a commit that wrote nothing is not flushed.
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
