"""Rating scales. Values are kept as integer step codes: code = (value - low) / step, and a
code turns back into the float nearest the exact decimal low + code * step (0.3 on a 0.1
grid, never 0.30000000000000004), looked up in the scale's `grid_values()`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.inputs import read_bounded
from simrate.install.locations import resource_folder

if TYPE_CHECKING:  # numpy is imported where arrays are made: `simrate info` loads none
    import numpy as np

BUILTIN_SCALES = ("clss", "sts")
#: The most grid points a scale may have: step codes, label lookups and the agreement's
#: per-code sums stay small and exact (a 0-5 scale in steps of 0.001 has 5,001).
MAX_SCALE_POINTS = 10_000
#: A scale file is a few kilobytes; anything past this is not one (a device, a stray file).
MAX_SCALE_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class ScalePoint:
    """A labelled point of a scale with its guideline text."""

    value: float
    label: str
    guideline: str = ""


@dataclass(frozen=True)
class Scale:
    """A Likert-like scale from `low` to `high` in steps of `step`."""

    name: str
    low: float
    high: float
    step: float
    points: tuple[ScalePoint, ...] = field(default_factory=tuple)
    title: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        ends = (self.low, self.high, self.step)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in ends):
            raise SimrateError(f"scale {self.name!r}: low, high and step must be finite "
                               "numbers")
        if not (self.step > 0 and self.high > self.low):
            raise SimrateError(f"scale {self.name!r}: needs high > low and step > 0")
        if not math.isfinite(self.high - self.low):
            raise SimrateError(f"scale {self.name!r}: high - low is beyond the largest number "
                               "simrate can hold")
        n = (self.high - self.low) / self.step
        if not math.isfinite(n) or n + 1 > MAX_SCALE_POINTS:
            raise SimrateError(f"scale {self.name!r}: (high - low) / step gives more than "
                               f"{MAX_SCALE_POINTS:,} points; simrate allows at most "
                               f"{MAX_SCALE_POINTS:,} (use a larger step)")
        if abs(n - round(n)) > 1e-9:
            raise SimrateError(f"scale {self.name!r}: (high - low) is not a multiple of step")

    @property
    def n_codes(self) -> int:
        """Number of distinct values on the grid."""
        return int(round((self.high - self.low) / self.step)) + 1

    @property
    def max_code(self) -> int:
        """The code of the highest value."""
        return self.n_codes - 1

    def describe(self) -> str:
        """`clss (0-4, step 0.25)` for messages."""
        return f"{self.name} ({fmt(self.low)}-{fmt(self.high)}, step {fmt(self.step)})"

    def to_code(self, value: float) -> int:
        """Return the integer step code of `value`; refuse values off the grid or out of range."""
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise SimrateError(f"score {cut(repr(value))} is not a number") from None
        if math.isnan(v) or math.isinf(v):
            raise SimrateError(f"score {cut(repr(value))} is not a number on scale "
                               f"{self.describe()}")
        if v < self.low - 1e-9 or v > self.high + 1e-9:
            raise SimrateError(f"score {fmt(v)} is outside scale {self.describe()}")
        code = min(max(int(round((v - self.low) / self.step)), 0), self.max_code)
        # On the grid means exactly a grid value: the float nearest the decimal grid point
        # (what `3.25`, `.3` or `3e-1` read from text become, and what from_code gives), or
        # the float `low + code * step` that earlier versions of simrate wrote
        # (0.30000000000000004), so their exports still read back. Nothing is rounded to
        # the grid: 2.75 + 1e-15 is refused.
        if v != self.grid_value(code) and v != self.low + code * self.step:
            raise SimrateError(f"score {exact(v)} is not on the grid of scale "
                               f"{self.describe()}")
        return code

    def grid_value(self, code: int) -> float:
        """The float nearest the exact decimal value `low + code * step` (0.3, never
        0.30000000000000004), for any code, on the scale or not."""
        return float(Decimal(repr(self.low)) + code * Decimal(repr(self.step)))

    def grid_values(self) -> np.ndarray:
        """Every grid value as a read-only float64 array indexed by code: what vectorised
        code->score conversions take (`scale.grid_values()[codes]`)."""
        return self._grid_values

    def distance(self, codes: int) -> float:
        """A distance of `codes` steps (a spread) in scale points, the float nearest the
        exact decimal: 12 steps of 0.1 are 1.2, where 12 * 0.1 is 1.2000000000000002."""
        return float(int(codes) * Decimal(repr(self.step)))

    def values_of(self, codes: np.ndarray) -> np.ndarray:
        """The scores of an array of codes as float64 grid values; NaN (a code that is not
        there) stays NaN, and a code beyond the scale (a damaged file) gets its exact decimal
        all the same, so nothing is lost on the way to a message."""
        import numpy as np

        codes = np.asarray(codes, dtype=np.float64)
        scores = np.full(codes.shape, np.nan)
        held = ~np.isnan(codes)
        index = codes[held].astype(np.int64)
        inside = (index >= 0) & (index < self.n_codes)
        found = np.empty(index.shape, dtype=np.float64)
        found[inside] = self._grid_values[index[inside]]
        found[~inside] = [self.grid_value(int(c)) for c in index[~inside]]
        scores[held] = found
        return scores

    @cached_property
    def _grid_values(self) -> np.ndarray:
        import numpy as np

        values = np.array([self.grid_value(c) for c in range(self.n_codes)], dtype=np.float64)
        values.setflags(write=False)
        return values

    @cached_property
    def _sum_values(self) -> np.ndarray:
        """The floats `low + code * step` of every code (the old conversion, noisy on 0.1
        steps), accepted on reading beside the exact grid values."""
        import numpy as np

        return self.low + np.arange(self.n_codes, dtype=np.float64) * self.step

    def from_code(self, code: int) -> float:
        """The value of an integer step code: the float nearest the exact decimal."""
        index = int(code)
        if 0 <= index < self.n_codes:
            return float(self._grid_values[index])
        return self.grid_value(index)

    def parse(self, text: str) -> int:
        """Parse a score typed or read from a file into a code."""
        s = text.strip()
        problem = foreign_characters(s)
        if problem:
            raise SimrateError(f"score {cut(s)!r} {problem}")
        try:
            v = float(s)
        except ValueError:
            raise SimrateError(f"score {cut(s)!r} is not a number") from None
        if underflows(s, v):
            raise SimrateError(f"score {cut(s)} is too small to be held as a number (it would "
                               f"read as 0), so it is not on the grid of scale "
                               f"{self.describe()}")
        return self.to_code(v)

    def check_threshold(self, points: float, what: str = "threshold") -> float:
        """`points` as a flagging threshold: a positive number no larger than the scale's
        range (no spread can be larger, so a larger threshold can only be a slip)."""
        span = self.high - self.low
        if not (isinstance(points, (int, float)) and 0 < points <= span * (1 + 1e-12)):
            raise SimrateError(f"{what} must be a positive number of scale points, at most "
                               f"the scale's range ({fmt(span)} on {self.describe()}), not "
                               f"{fmt(points) if isinstance(points, (int, float)) else cut(repr(points))}")
        return float(points)

    def point_for(self, value: float) -> ScalePoint | None:
        """The labelled point nearest below or at `value`."""
        best = None
        for p in sorted(self.points, key=lambda p: p.value):
            if p.value <= value + 1e-9:
                best = p
        return best

    def to_dict(self) -> dict:
        """A JSON-able description, the same shape as the files in resources/scales."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "low": self.low,
            "high": self.high,
            "step": self.step,
            "points": [
                {"value": p.value, "label": p.label, "guideline": p.guideline} for p in self.points
            ],
        }

    @classmethod
    def from_dict(cls, data: dict, source: str | Path | None = None) -> Scale:
        """Build a scale from its JSON description; errors name `source`."""
        for key in ("low", "high", "step"):
            if key not in data:
                raise SimrateError(f"not a scale definition: no {key!r}", source)
            _require_number(data[key], key, source)
        name = data.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise SimrateError("the scale's \"name\" is empty or not text", source)
        raw_points = data.get("points", [])
        if not isinstance(raw_points, list):
            raise SimrateError("the scale's \"points\" must be a list", source)
        try:
            points = tuple(_point(p, source) for p in raw_points)
            scale = cls(
                name=(name.strip() if name else (Path(source).stem if source else "custom")),
                low=float(data["low"]),
                high=float(data["high"]),
                step=float(data["step"]),
                points=points,
                title=str(data.get("title", "")),
                description=str(data.get("description", "")),
            )
        except SimrateError as exc:
            raise SimrateError(exc.message, exc.path or source, exc.line) from None
        for p in points:
            try:
                scale.to_code(p.value)
            except SimrateError as exc:
                raise SimrateError(f"labelled point: {exc.message}", source) from None
        return scale


def _point(data: object, source: str | Path | None) -> ScalePoint:
    """A labelled point of a scale file: {"value": ..., "label": ..., "guideline": ...}."""
    if not isinstance(data, dict) or "value" not in data or "label" not in data:
        raise SimrateError("each of the scale's points needs a \"value\" and a \"label\"",
                           source)
    return ScalePoint(_require_number(data["value"], "point value", source), str(data["label"]),
                      str(data.get("guideline", "")))


def _require_number(value: object, what: str, source: str | Path | None) -> float:
    """`value` as a float when it is a finite JSON number (not text, not true/false)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SimrateError(f"the scale's {what} {cut(repr(value))} must be a number, "
                           "not text or true/false", source)
    try:
        number = float(value)
    except OverflowError:  # an integer of 400 digits
        number = math.inf
    if not math.isfinite(number):
        raise SimrateError(f"the scale's {what} {cut(repr(value))} must be a finite number",
                           source)
    return number


def fmt(value: float) -> str:
    """Format a number without trailing zeros: 3.25, 4, 0.5; huge or tiny ones as 1e+308."""
    if value != value:
        return "nan"
    if value != 0 and not 1e-6 <= abs(value) < 1e15:
        return f"{value:.6g}"
    return f"{value:.6f}".rstrip("0").rstrip(".")


def exact(value: float) -> str:
    """A number for a message saying it is off the grid: shortest exact form, never 309
    digits (3.2500000000000004, 1e+308)."""
    return repr(float(value)) if value == value else "nan"


def foreign_characters(text: str) -> str | None:
    """Why a number written with characters other than ASCII is refused, else None.

    Python's float() reads fullwidth `３` and Arabic-Indic `٣` as 3, `0_5` as 5 (and spaces
    of other scripts as spaces); the files of this field never hold them, so one that does is more
    likely a slip (or a text column) than a score, and is refused rather than read.
    """
    if "_" in text:  # float() reads 0_5 as 5: a slip, not a score
        return "has '_': numbers are read only in the digits 0-9, with '.' and 'e'"
    if text.isascii():
        return None
    char = next(c for c in text if not c.isascii())
    return (f"has {char!r} (U+{ord(char):04X}): numbers are read only in the digits 0-9, "
            "with '.' and 'e'")


def underflows(text: str, value: float) -> bool:
    """True when `text` names a nonzero number too small for a float, so it reads as 0."""
    if value != 0:
        return False
    mantissa = text.strip().lower().split("e")[0]
    return any(ch in "123456789" for ch in mantissa)


def points(value: float) -> str:
    """A number of scale points for messages: `1 point`, `1.5 points`."""
    return f"{fmt(value)} point{'' if value == 1 else 's'}"


def load_scale(spec: str | Path) -> Scale:
    """Load a built-in scale by name (`clss`, `sts`) or a user scale from a JSON file."""
    if str(spec) in BUILTIN_SCALES:
        path = resource_folder() / "scales" / f"{spec}.json"
    else:
        path = Path(spec)
    raw = read_bounded(  # a file or a pipe, under the limit; a device or folder refused
        path if str(spec) in BUILTIN_SCALES else spec,
        MAX_SCALE_FILE_BYTES, noun="scale file",
        missing=f"no such scale (use {', '.join(BUILTIN_SCALES)} or a JSON file)",
        too_large=f"larger than {MAX_SCALE_FILE_BYTES // 2**20} MiB: not a scale file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = exc.object[:exc.start].count(b"\n") + 1
        raise SimrateError(f"not UTF-8 text ({exc.reason})", spec, line) from None
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise SimrateError(f"not valid JSON: {exc.msg}", path, exc.lineno) from None
    except _DuplicateKey as exc:
        raise SimrateError(f"the key {cut(repr(exc.args[0]))} appears twice in one object",
                           path) from None
    except RecursionError:
        raise SimrateError("JSON nested too deeply: not a scale file", path) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise SimrateError(f"not a scale file: {cut(str(exc), 80)}", path) from None
    if not isinstance(data, dict):
        raise SimrateError("a scale file must hold one JSON object", path)
    return Scale.from_dict(data, path)


class _DuplicateKey(ValueError):
    """A JSON object names one key twice (json keeps the last silently)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """json's object_pairs_hook refusing a key named twice."""
    found: dict = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


#: Tolerance for thresholds typed as decimals (0.3 / 0.1 is 2.9999999999999996).
_EPSILON = 1e-9


def threshold_codes(threshold: float, step: float) -> int:
    """The smallest spread in step codes that is at least `threshold` scale points (>= 1).

    A spread of k codes is k * step points, so "spread >= threshold" is
    k >= ceil(threshold / step); rounding to the nearest code instead would flag a
    0.25 spread under a 0.3 threshold.
    """
    ratio = threshold / step
    if not ratio < _MOST_CODES:  # a stored threshold far beyond any scale: nothing is flagged
        return _MOST_CODES
    return max(1, math.ceil(ratio - _EPSILON))


#: More step codes than any spread can have (and small enough for SQLite and numpy integers).
_MOST_CODES = 2 ** 53
