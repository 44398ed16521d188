"""One module per subcommand: <name>_cmd.run(args) -> exit status."""

from __future__ import annotations

import getpass


def login_name() -> str:
    """The user's login name, recorded as who made a change when --by is not given."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return ""
