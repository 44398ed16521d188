"""A throwaway PostgreSQL cluster for the hub tests and benchmarks.

PostgreSQL refuses to run as root; when we are root the server runs as the unprivileged
`postgres` user and its folder belongs to that user. The server listens on a free
loopback port and on a socket in its own folder, and is removed afterwards.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: The superuser of the throwaway cluster; it connects over the socket without a password.
ADMIN = "postgres"
SERVER_USER = "postgres"


def server_bindir() -> Path | None:
    """The folder holding initdb and pg_ctl (`pg_config --bindir`), or None when absent."""
    candidates = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                                 check=True).stdout.strip()
            candidates.append(Path(out))
        except (OSError, subprocess.CalledProcessError):
            pass
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """initdb, start, stop, crash and remove one PostgreSQL cluster."""

    def __init__(self, bindir: Path, fsync: bool = False, max_connections: int = 120,
                 reserved: int = 3):
        self.bindir = bindir
        #: the server's connection slots, and those kept for superusers (a small number
        #: makes a full server cheap to reach)
        self.max_connections = max_connections
        self.reserved = reserved
        self.port = free_port()
        self.base = Path(tempfile.mkdtemp(prefix="simrate-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.fsync = fsync
        self._as_server = os.geteuid() == 0
        if self._as_server:
            entry = pwd.getpwnam(SERVER_USER)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)
        os.chmod(self.base, 0o755)  # the socket must be reachable by the clients (root)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._as_server:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check,
                              cwd=str(self.base))

    def init(self) -> None:
        """Create the cluster: the socket for the superuser, passwords over TCP."""
        self._run("initdb", "-D", str(self.data), "-U", ADMIN, "--auth-local=trust",
                  "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8")
        settings = [
            "listen_addresses = '127.0.0.1'",
            f"port = {self.port}",
            f"unix_socket_directories = '{self.base}'",
            f"fsync = {'on' if self.fsync else 'off'}",
            f"max_connections = {self.max_connections}",
            f"superuser_reserved_connections = {self.reserved}",
            "shared_buffers = 64MB",
        ]
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n" + "\n".join(settings) + "\n")

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`immediate` is a crash: no shutdown checkpoint)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def running(self) -> bool:
        """True while the server runs."""
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def remove(self) -> None:
        """Stop the server if it runs and delete its folder."""
        if self.data.exists() and self.running():
            self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

    def admin_dsn(self, dbname: str = "postgres") -> str:
        """A connection string for the superuser over the socket."""
        return f"host={self.base} port={self.port} user={ADMIN} dbname={dbname}"

    def url(self, user: str, dbname: str) -> str:
        """A libpq URL for `user` over TCP loopback (no password in it)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname}"

    def sql(self, statement: str, dbname: str = "postgres") -> None:
        """Run one statement as the superuser (autocommit)."""
        import psycopg

        with psycopg.connect(self.admin_dsn(dbname), autocommit=True) as conn:
            conn.execute(statement)

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Wait until the server accepts connections."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done = self._run("pg_isready", "-h", str(self.base), "-p", str(self.port),
                             check=False)
            if done.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("the test PostgreSQL server did not come up")
