"""The frozen bundle's entry point: the same `main` as the `simrate` command."""

from __future__ import annotations

import sys

from simrate.cli import main

if __name__ == "__main__":
    sys.exit(main())
