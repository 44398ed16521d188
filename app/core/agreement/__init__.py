"""Krippendorff's alpha and Pearson correlation: batch, live, per scope, with intervals.

The public API (DESIGN.md): `from simrate.core.agreement import alpha, LiveAgreement`.
"""

from __future__ import annotations

from simrate.core.agreement.batch import LEVELS, alpha, alpha_with_reason, unit_disagreement
from simrate.core.agreement.live import LiveAgreement

__all__ = ["LEVELS", "LiveAgreement", "alpha", "alpha_with_reason", "unit_disagreement"]
