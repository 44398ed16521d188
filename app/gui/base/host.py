"""What a panel may use of the main window that opens it, as a type.

The panels sit a floor below the shell, so they cannot name `MainWindow`; these protocols
say which of its parts they use (its application context, and the hub link's passwords
typed this session), and mypy checks the real window against them where it passes itself.
"""

from __future__ import annotations

from typing import Protocol

from simrate.gui.base.context import ApplicationContext


class HubPasswords(Protocol):
    """The hub link of the window: passwords typed this session, by hub URL."""

    @property
    def passwords(self) -> dict[str, str]: ...

    def attach(self) -> None:
        """Start syncing the open project with its hub (after it was published)."""


class PanelHost(Protocol):
    """The main window, as a panel of the team work sees it."""

    @property
    def context(self) -> ApplicationContext: ...

    @property
    def hub_link(self) -> HubPasswords: ...
