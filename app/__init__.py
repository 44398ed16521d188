"""simrate: graded similarity annotation, live agreement, adjudication and gold export."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

#: Scale definitions, guideline texts, icons and styles live beside the package.
RESOURCES = Path(__file__).resolve().parent.parent / "resources"
