"""TypedScore: the score an annotator types key by key, read as she means it.

DESIGN.md's keyboard contract: a digit sets the whole number, and a decimal point typed
after it goes on, so `3`, `.`, `2`, `5` is 3.25. Nothing is rounded: a typed value that is
not on the scale's grid is refused with a line, and the typing starts again.

The rules, key by key:
- a digit with no decimal point typed starts a new whole number (`3` then `4` is 4);
- `.` after a whole number goes on to the fraction (`.` first is `0.`);
- a digit after the point is added while the text is a grid value or can still become one
  (`3.2` on a 0.25 grid may become 3.25, `3.50` is 3.5); otherwise the value typed is
  refused (`3.3` on a 0.25 grid, `3.254`, `4.5` on a scale that ends at 4), whatever came
  before it: a digit never silently starts another number once a point is typed.

This module knows no Qt: the rating view and the adjudication queue feed it keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale, fmt

#: Longest text typed for one score: past it a key is a slip, not a score.
MAX_TYPED = 12


@dataclass(frozen=True)
class Typed:
    """What one key did: the text typed so far, its grid code when it is a whole value on
    the grid (None while a fraction is unfinished, as `3.2`), or the line refusing it."""

    text: str = ""
    code: int | None = None
    refusal: str | None = None



class TypedScore:
    """The keys typed for one score, until `reset` (a new item, a step, a click, a save)."""

    def __init__(self, scale: Scale):
        self.scale = scale
        self.text = ""
        # Every grid value as written (`3.25`, `4`): a typed text may still become one of
        # them while it is a prefix of one.
        self._written = [fmt(scale.from_code(code)) for code in range(scale.n_codes)]

    def reset(self) -> None:
        """Forget the keys typed so far."""
        self.text = ""

    @property
    def unfinished(self) -> str:
        """The text typed so far when it is not a score yet (`3.2`), else ''."""
        return self.text if self.text and self._code(self.text) is None else ""

    def refuse_unfinished(self) -> str:
        """The line refusing an unfinished text (Enter on `3.2`); the typing starts again."""
        return self._refuse(self.text).refusal or ""

    def key(self, key: str) -> Typed:
        """Take one key, a digit or `.`, and say what the score is now."""
        if key == ".":
            return self._point()
        if "." not in self.text:
            return self._settle(key)
        return self._settle(self.text + key)

    def _point(self) -> Typed:
        if "." in self.text:
            return self._refuse(self.text + ".")
        return self._settle((self.text or "0") + ".")

    def _settle(self, text: str) -> Typed:
        if len(text) > MAX_TYPED:
            return self._refuse(text)
        code = self._code(text)
        if code is None and not self._could_become(text):
            return self._refuse(text)
        self.text = text
        return Typed(text, code)

    def _refuse(self, text: str) -> Typed:
        self.text = ""
        try:
            self.scale.parse(text)
            problem = f"score {text} cannot be typed on scale {self.scale.describe()}"
        except SimrateError as exc:
            problem = str(exc)
        return Typed(text, None, f"{problem}: not taken, type the score again")

    def _code(self, text: str) -> int | None:
        try:
            return self.scale.parse(text)
        except SimrateError:
            return None

    def _could_become(self, text: str) -> bool:
        if "." not in text:
            return False
        return any(written.startswith(text) for written in self._written)
