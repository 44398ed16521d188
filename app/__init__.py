"""simrate: graded similarity annotation, live agreement, adjudication and gold export."""

from __future__ import annotations

from app.locations import installed_version, resource_folder

__version__ = installed_version()

#: Scale definitions, guideline texts and icons: the installed data package app._resources.
RESOURCES = resource_folder()
