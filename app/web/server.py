"""`simrate serve`: the web pages (pages.py) under uvicorn, on a socket bound before the
port answers.

The project file (or the hub, for an organizer's replica) is opened before anything
listens, and closed after the last request under way has finished: on SIGTERM uvicorn
finishes those requests, then we close the file, so no acknowledged rating is lost.
"""

from __future__ import annotations

import socket
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.web.backends import backend_for
from simrate.web.hub_backend import HubBackend
from simrate.web.pages import create_app
from simrate.web.slow_clients import BoundedH11, raise_file_limit


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound socket for the server, or SimrateError saying why there is none."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise SimrateError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise SimrateError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _server_class():
    import uvicorn

    class Stoppable(uvicorn.Server):
        """uvicorn's server, ending with status 0 after a SIGTERM or SIGINT it handled
        (uvicorn raises the signal again once it has stopped, which ends with -15)."""

        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()

    return Stoppable


def serve(path: str | Path, host: str = "127.0.0.1", port: int = 8000,
          say=print, ip_starts_per_minute: float = 60.0, max_connections: int = 1000) -> None:
    """Serve the open studies until SIGTERM or SIGINT; the file (or the hub, for an
    organizer's replica) is opened before the port answers, and closed after the last
    request under way has finished."""
    import uvicorn

    _Server = _server_class()
    backend = backend_for(path)  # SimrateError (no such file, not a project) first
    backend.open()  # SimrateError (the file, or the hub refuses) before anything listens
    try:
        open_studies = backend.open_studies()
        sock = listening_socket(host, port)
        app = create_app(path, backend=backend, ip_starts_per_minute=ip_starts_per_minute)
        raise_file_limit()
        config = uvicorn.Config(app, lifespan="on", http=BoundedH11,
                                server_header=False, access_log=False, log_level="warning",
                                proxy_headers=True, timeout_graceful_shutdown=20,
                                timeout_keep_alive=15, limit_concurrency=max_connections,
                                h11_max_incomplete_event_size=16 * 1024)
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        where = " through the hub, and annotators' sync links (simrate team token)," \
            if isinstance(backend, HubBackend) else ""
        say(f"serving {len(open_studies)} open studies of {path}{where} on "
            f"http://{shown}:{bound[1]}/ " + (f"({', '.join(open_studies)})" if open_studies
                                             else "(none open: simrate crowd study)"),
            flush=True)
        _Server(config).run(sockets=[sock])
    finally:
        backend.close()
