"""What the alpha tests compare with: the krippendorff package, and equality to 1e-9."""

from __future__ import annotations

import krippendorff
import numpy as np


def reference_alpha(data: np.ndarray, level: str) -> float | None:
    """krippendorff.alpha, with its errors and NaN (0/0) read as undefined (None)."""
    try:
        with np.errstate(all="ignore"):
            value = krippendorff.alpha(data, level_of_measurement=level)
    except ValueError:
        return None
    return None if np.isnan(value) else float(value)


def same(a: float | None, b: float | None) -> bool:
    """Both undefined, or equal to 1e-9 (relative to `b` when it is above 1)."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))
