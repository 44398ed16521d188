"""How reliable the gold is: Spearman-Brown from Krippendorff's alpha.

Interval alpha estimates the reliability of one rating: the share of a rating's variance
that is the items' true variance, a / (1 - a) being true variance over error variance. The
mean of k ratings divides the error variance by k, so its reliability is
    R_k = k a / (1 + (k - 1) a)          (Spearman-Brown),
which is the expected correlation between the means of two disjoint panels of k raters
(raters drawn for each item, so that a rater's bias counts as error, as alpha counts it).
Worked example: a = 0.5 gives R_2 = 1 / 1.5 = 0.667, R_4 = 2 / 2.5 = 0.8 and R_9 = 0.9.

Below chance (a < 0) the ratings disagree more than random pairs do: the formula is applied
as it is (a negative value says the gold is noise), bounded below by -1, which it reaches
when 1 + (k - 1) a <= 0. No number of raters makes such gold reliable.
"""

from __future__ import annotations

import math

#: Slack for floating-point error when rounding a number of raters up.
_EPS = 1e-9


def gold_reliability(alpha: float | None, k: float) -> float | None:
    """Spearman-Brown reliability of the mean of `k` ratings from single-rating `alpha`.

    None when alpha is None or NaN; k must be positive (a mean number of raters per item
    may be fractional). Negative alpha: the same formula, clipped to [-1, 1] (module doc).
    """
    if k <= 0:
        raise ValueError("k, the number of ratings per item, must be positive")
    if alpha is None or math.isnan(alpha):
        return None
    denominator = 1.0 + (k - 1.0) * alpha
    if denominator <= 0:
        return -1.0
    return min(max(k * alpha / denominator, -1.0), 1.0)


def raters_needed(alpha: float | None, target: float) -> int | None:
    """Smallest whole k with gold_reliability(alpha, k) >= target.

    None when alpha is None, NaN or <= 0 (no panel is reliable), or when the target is 1 or
    more and alpha below 1 (never reached); 1 when one rating already reaches the target.
    """
    if alpha is None or math.isnan(alpha) or alpha <= 0:
        return None
    if alpha >= 1.0 or target <= alpha:
        return 1
    if target >= 1.0:
        return None
    # solve k a / (1 + (k - 1) a) = target for k, then round up
    exact = target * (1.0 - alpha) / (alpha * (1.0 - target))
    return max(1, math.ceil(exact - _EPS))


def reliability_ci(ci: tuple[float, float] | None, k: float
                   ) -> tuple[float, float] | None:
    """Alpha's interval mapped through Spearman-Brown (monotone in alpha, so the ends map to
    the ends); None when there is no interval or either end is undefined."""
    if ci is None:
        return None
    low, high = gold_reliability(ci[0], k), gold_reliability(ci[1], k)
    if low is None or high is None:
        return None
    return low, high
