"""The hub's wait variable takes ASCII digits only (hub/link/backoff.py)."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.hub.link.backoff import WAIT_VARIABLE, total_wait


@pytest.mark.parametrize("given", ["３０", "٣", "3_0"])
def test_hub_wait_variable_takes_ascii_digits(monkeypatch, given):
    monkeypatch.setenv(WAIT_VARIABLE, given)
    with pytest.raises(SimrateError, match=WAIT_VARIABLE):
        total_wait()
    monkeypatch.setenv(WAIT_VARIABLE, " 2.5 ")
    assert total_wait() == 2.5
