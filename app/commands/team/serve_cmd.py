"""simrate serve PROJECT [--host 127.0.0.1] [--port 8000] [--starts-per-ip N]
[--max-connections N]: the web rating page."""

from __future__ import annotations

import argparse

from simrate.commands.base.option_types import host_name, starts_per_minute, whole_number
from simrate.core.base.errors import SimrateError
from simrate.install.locations import install_hint


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate serve`."""
    p = sub.add_parser("serve", help="serve the open web studies (needs simrate[web])")
    p.add_argument("project")
    p.add_argument("--host", type=host_name, default="127.0.0.1")
    p.add_argument("--port", type=whole_number, default=8000)
    p.add_argument("--starts-per-ip", type=starts_per_minute, default=60.0, metavar="N",
                   help="tasks one client address may start a minute (per server process)")
    p.add_argument("--max-connections", type=whole_number, default=1000, metavar="N",
                   help="open connections this process serves at once (more wait or get 503)")


def run(args: argparse.Namespace) -> int:
    """Serve the project's open web studies until stopped (SIGTERM or Ctrl+C)."""
    try:
        from simrate.web.server import serve
    except ImportError:
        raise SimrateError(f"the web page needs the web extra: {install_hint('web')}") from None
    if not 0 <= args.port <= 65535:
        raise SimrateError(f"--port must be between 0 and 65535, not {args.port}")
    if not args.starts_per_ip > 0:
        raise SimrateError(f"--starts-per-ip must be a positive number, not {args.starts_per_ip:g}")
    if not 10 <= args.max_connections <= 1_000_000:
        raise SimrateError(f"--max-connections must be 10 or more, not {args.max_connections}")
    serve(args.project, args.host, args.port, ip_starts_per_minute=args.starts_per_ip,
          max_connections=args.max_connections)
    return 0
