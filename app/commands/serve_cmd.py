"""simrate serve PROJECT [--host 127.0.0.1] [--port 8000] [--starts-per-ip N]
[--max-connections N]: the web rating page."""

from __future__ import annotations

import argparse

from simrate.core.base.errors import SimrateError


def run(args: argparse.Namespace) -> int:
    """Serve the project's open web studies until stopped (SIGTERM or Ctrl+C)."""
    try:
        from simrate.web.server import serve
    except ImportError:
        raise SimrateError("the web page needs the web extra: pip install 'simrate[web]'") \
            from None
    if not 0 <= args.port <= 65535:
        raise SimrateError(f"--port must be between 0 and 65535, not {args.port}")
    if not args.starts_per_ip > 0:
        raise SimrateError(f"--starts-per-ip must be a positive number, not {args.starts_per_ip:g}")
    if not 10 <= args.max_connections <= 1_000_000:
        raise SimrateError(f"--max-connections must be 10 or more, not {args.max_connections}")
    serve(args.project, args.host, args.port, ip_starts_per_minute=args.starts_per_ip,
          max_connections=args.max_connections)
    return 0
