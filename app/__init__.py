"""simrate: graded similarity annotation, live agreement, adjudication and gold export."""

from __future__ import annotations

from pathlib import Path

from app.locations import installed_version, resource_folder


def __getattr__(name: str) -> str | Path:
    """Looked up on first use, not at every start (importlib.metadata and .resources take
    tens of milliseconds to import): `__version__`, and `RESOURCES`, the folder of scale
    definitions, guideline texts and icons (the installed data package app._resources)."""
    if name == "__version__":
        return installed_version()
    if name == "RESOURCES":
        return resource_folder()
    raise AttributeError(f"module 'app' has no attribute {name!r}")
