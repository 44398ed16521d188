"""Krippendorff's alpha and Pearson correlation: batch, live, per scope, with intervals.

The public API (DESIGN.md): `from app.core.agreement import alpha, LiveAgreement`.
"""

from __future__ import annotations

from app.core.agreement.batch import LEVELS, alpha, alpha_with_reason, unit_disagreement
from app.core.agreement.live import LiveAgreement

__all__ = ["LEVELS", "LiveAgreement", "alpha", "alpha_with_reason", "unit_disagreement"]
