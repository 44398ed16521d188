"""A throwaway PgBouncer in transaction mode in front of the test cluster.

PgBouncer runs as the unprivileged `postgres` user (we may be root) on a free loopback
port, from a folder of its own that is removed afterwards. Every database of the cluster
is reachable through it under its own name (`* =` in [databases]), as the same login:
each login gets a pool of its own, so `session_user` on the server is still the person.

Logins and passwords: PgBouncer checks a client's SCRAM password against the secret the
server stores for that login (auth_query, run as the `bouncer_auth` superuser whose own
password is in the bouncer's auth_file), and then logs in to the server with the same
SCRAM proof. Logins the organizer adds later (`team add`) work at once, without editing
a file or reloading the bouncer.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.hub.cluster import SERVER_USER, Cluster, free_port

#: Where Debian's pgbouncer package puts the program.
DEBIAN_BINARY = "/usr/sbin/pgbouncer"
#: The role PgBouncer runs its auth_query as, and its password (in the auth_file).
AUTH_USER = "bouncer_auth"
AUTH_PASSWORD = "bouncer-auth-secret"


def bouncer_binary() -> Path | None:
    """The pgbouncer program, or None when it is not installed."""
    found = shutil.which("pgbouncer")
    if found:
        return Path(found)
    return Path(DEBIAN_BINARY) if Path(DEBIAN_BINARY).is_file() else None


class Bouncer:
    """Start, stop and remove one PgBouncer in front of `cluster`."""

    def __init__(self, binary: Path, cluster: Cluster, pool_mode: str = "transaction",
                 pool_size: int = 2, max_db_connections: int = 0, max_client_conn: int = 500,
                 query_wait_timeout: int = 60, databases: tuple[str, ...] = ()):
        self.binary = binary
        self.cluster = cluster
        self.pool_mode = pool_mode
        #: server connections per (database, login) pair
        self.pool_size = pool_size
        #: server connections per database, all logins together (0: no limit)
        self.max_db_connections = max_db_connections
        #: client connections the bouncer takes in all
        self.max_client_conn = max_client_conn
        #: seconds a query may wait for a free server connection
        self.query_wait_timeout = query_wait_timeout
        #: the databases it serves by name; none: every database (`*`)
        self.databases = databases
        self.port = free_port()
        self.base = Path(tempfile.mkdtemp(prefix="simrate-bouncer-"))
        self.ini = self.base / "pgbouncer.ini"
        self.log = self.base / "pgbouncer.log"
        self.pidfile = self.base / "pgbouncer.pid"
        self._as_server = os.geteuid() == 0

    def _owned(self, path: Path) -> None:
        if self._as_server:
            entry = pwd.getpwnam(SERVER_USER)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _configure(self) -> None:
        self.cluster.sql(
            "DO $$ BEGIN "
            f"IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{AUTH_USER}') THEN "
            f"CREATE ROLE {AUTH_USER} LOGIN SUPERUSER PASSWORD '{AUTH_PASSWORD}'; "
            "END IF; END $$")
        userlist = self.base / "userlist.txt"
        userlist.write_text(f'"{AUTH_USER}" "{AUTH_PASSWORD}"\n', encoding="utf-8")
        os.chmod(userlist, 0o600)
        self._owned(userlist)
        settings = {
            "listen_addr": "127.0.0.1",
            "listen_port": str(self.port),
            "unix_socket_dir": "",
            "pool_mode": self.pool_mode,
            "default_pool_size": str(self.pool_size),
            "min_pool_size": "0",
            "reserve_pool_size": "0",
            "max_db_connections": str(self.max_db_connections),
            "max_client_conn": str(self.max_client_conn),
            "auth_type": "scram-sha-256",
            "auth_file": str(userlist),
            "auth_user": AUTH_USER,
            # pg_authid, not pg_shadow: a login the organizer removed (NOLOGIN) still passes
            # the bouncer, so the server says why it may not log in
            "auth_query": "SELECT rolname, rolpassword FROM pg_authid WHERE rolname=$1",
            "logfile": str(self.log),
            "pidfile": str(self.pidfile),
            "log_connections": "0",
            "log_disconnections": "0",
            "server_login_retry": "1",
            "query_wait_timeout": str(self.query_wait_timeout),
        }
        server = f"host=127.0.0.1 port={self.cluster.port}"
        entries = [f"{name} = {server} dbname={name}" for name in self.databases] \
            or [f"* = {server}"]
        lines = ["[databases]", *entries, "",
                 "[pgbouncer]", *(f"{key} = {value}" for key, value in settings.items())]
        self.ini.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self._owned(self.ini)
        self._owned(self.base)
        os.chmod(self.base, 0o755)

    def start(self) -> None:
        """Write the configuration, start the daemon and wait until it takes connections."""
        self._configure()
        command = [str(self.binary), "-d", str(self.ini)]
        if self._as_server:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=str(self.base))
        if done.returncode != 0:
            raise RuntimeError(f"pgbouncer did not start: {done.stderr.strip()} "
                               f"{self.log_text()}")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"pgbouncer did not come up: {self.log_text()}")

    def pid(self) -> int | None:
        """The daemon's process id, or None when it is not running."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        return pid

    def stop(self) -> None:
        """Shut the daemon down at once (SIGTERM) and wait until it is gone."""
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Stop the daemon and delete its folder."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def log_text(self) -> str:
        """What the daemon logged so far."""
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def url(self, user: str, dbname: str) -> str:
        """A libpq URL for `user` through the bouncer (no password in it)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname}"

    def remember(self, passfile: Path) -> None:
        """Give every login of a password file the same password through the bouncer."""
        prefix = f"127.0.0.1:{self.cluster.port}:"
        lines = passfile.read_text(encoding="utf-8").splitlines()
        extra = [f"127.0.0.1:{self.port}:{line[len(prefix):]}" for line in lines
                 if line.startswith(prefix)]
        with open(passfile, "a", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in extra)
