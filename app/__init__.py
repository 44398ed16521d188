"""simrate: graded similarity annotation, live agreement, adjudication and gold export."""

from __future__ import annotations

from simrate.install.locations import installed_version, resource_folder

# The public API (README, Python API), imported on first use so that `simrate --help` and the
# command line do not pay for pandas and the agreement code at every start.
_PUBLIC = {
    "Project": "simrate.core.project",
    "alpha": "simrate.core.agreement",
    "LiveAgreement": "simrate.core.agreement",
}
__all__ = ["Project", "alpha", "LiveAgreement", "__version__", "RESOURCES"]


def __getattr__(name: str) -> object:
    """Looked up on first use, not at every start (importlib.metadata and .resources take
    tens of milliseconds to import): the public API (`Project`, `alpha`, `LiveAgreement`),
    `__version__`, and `RESOURCES`, the folder of scale definitions, guideline texts and
    icons (the installed data package simrate._resources)."""
    if name in _PUBLIC:
        import importlib

        return getattr(importlib.import_module(_PUBLIC[name]), name)
    if name == "__version__":
        return installed_version()
    if name == "RESOURCES":
        return resource_folder()
    raise AttributeError(f"module 'simrate' has no attribute {name!r}")
