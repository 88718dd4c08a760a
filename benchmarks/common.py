"""Shared pieces of the benchmarks: timing by medians, and the table's rows."""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass

import app.window.gl_checks  # noqa: F401  (before OpenGL.GL, as main.py does)


def median_time(fn, repeat: int = 7, warmup: int = 1, min_total: float = 0.0) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeat`` runs (after ``warmup``).

    With ``min_total`` each sample loops ``fn`` until that many seconds pass and divides,
    so sub-millisecond figures are not timer noise.
    """
    for _ in range(warmup):
        fn()
    samples = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            count, start = 0, time.perf_counter()
            while True:
                fn()
                count += 1
                elapsed = time.perf_counter() - start
                if elapsed >= min_total:
                    break
            samples.append(elapsed / count)
    finally:
        if gc_was_enabled:
            gc.enable()
    return statistics.median(samples)


@dataclass
class Row:
    """One line of the benchmark table.

    ``value`` and ``reference`` are in ``unit``; ``ratio`` is reference / value unless given
    (for times: how many times faster than the reference). ``target`` is the requirement in
    words and ``ok`` whether ``value`` meets it (``None``: a figure to report, no target).
    """

    figure: str
    value: float
    unit: str = "ms"
    reference_label: str = ""
    reference: float | None = None
    target: str = ""
    ok: bool | None = None
    ratio: float | None = None
    note: str = ""

    def ratio_value(self) -> float | None:
        if self.ratio is not None:
            return self.ratio
        if self.reference is not None and self.value:
            return self.reference / self.value
        return None


def fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    if unit == "ms" and value >= 1000:
        return f"{value / 1000:.2f} s"
    magnitude = abs(value)
    if magnitude == 0:
        text = "0"
    elif magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    elif magnitude >= 1e-3:
        text = f"{value:.4f}"
    else:
        text = f"{value:.2e}"
    return f"{text} {unit}".strip()
