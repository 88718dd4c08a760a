"""The number typed during a modal transform (``R Z 90 Enter``), as Blender reads it.

Digits and one decimal point append; ``-`` flips the sign wherever it is typed (Blender's
numeric input negates rather than inserting a minus); Backspace removes the last character
typed (a sign flip included). The value is ``None`` until a digit is typed, so a transform
follows the mouse until then.
"""

from __future__ import annotations


class TypedNumber:
    """Keys typed so far and the number they spell."""

    def __init__(self):
        self._typed: list[str] = []

    def type(self, char: str) -> bool:
        """Feed one character; returns whether it belongs to a number (and was taken)."""
        if char == "-" or char.isdigit():
            self._typed.append(char)
            return True
        if char in ".,":
            if "." not in self._typed:
                self._typed.append(".")
            return True
        return False

    def backspace(self) -> bool:
        """Remove the last character typed; returns whether there was one."""
        if not self._typed:
            return False
        self._typed.pop()
        return True

    def clear(self) -> None:
        self._typed.clear()

    @property
    def active(self) -> bool:
        """Whether anything has been typed (the transform then ignores the mouse)."""
        return bool(self._typed)

    def _digits(self) -> str:
        return "".join(c for c in self._typed if c != "-")

    def negative(self) -> bool:
        return self._typed.count("-") % 2 == 1

    def value(self) -> float | None:
        """The number typed, or ``None`` while it has no digit (``-`` alone, ``.``)."""
        digits = self._digits()
        if not any(c.isdigit() for c in digits):
            return None
        number = float(digits if not digits.startswith(".") else "0" + digits)
        return -number if self.negative() else number

    def text(self) -> str:
        """What the header shows: ``-90``, ``1.5``, ``-`` (sign before digits), ``''``."""
        return ("-" if self.negative() else "") + self._digits()
