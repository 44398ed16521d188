"""simrate: graded similarity annotation, live agreement, adjudication and gold export."""

from __future__ import annotations

from app.locations import installed_version, resource_folder


def __getattr__(name: str) -> str:
    """`__version__`, read from the package metadata on first use (not at every start)."""
    if name == "__version__":
        return installed_version()
    raise AttributeError(f"module 'app' has no attribute {name!r}")


#: Scale definitions, guideline texts and icons: the installed data package app._resources.
RESOURCES = resource_folder()
