"""Run every ``benchmarks/bench_*.py`` and print one table (``make bench``).

Each module has ``rows() -> list[Row]``; every figure and its reference are measured in the
same run, on the same machine, as medians of repeated runs.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
import traceback
from pathlib import Path

from benchmarks.common import Row, fmt

HERE = Path(__file__).resolve().parent


def collect(selected: list[str]) -> list[tuple[str, list[Row] | str]]:
    out = []
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem
        if selected and not any(s in name for s in selected):
            continue
        start = time.perf_counter()
        try:
            rows = importlib.import_module(f"benchmarks.{name}").rows()
        except Exception:  # a broken benchmark is reported, the others still run
            out.append((name, traceback.format_exc(limit=3)))
            continue
        print(f"  {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
        out.append((name, rows))
    return out


def render(results) -> str:
    header = ["figure", "value", "reference", "ratio", "target", "ok"]
    lines = []
    table = []
    for name, rows in results:
        if isinstance(rows, str):
            table.append([f"{name}: FAILED", rows.strip().splitlines()[-1], "", "", "", "✗"])
            continue
        for r in rows:
            ref = (
                f"{r.reference_label} {fmt(r.reference, r.unit)}".strip()
                if r.reference_label
                else fmt(r.reference, r.unit)
            )
            ratio = r.ratio_value()
            ok = "" if r.ok is None else ("✓" if r.ok else "✗")
            figure = r.figure + (f" ({r.note})" if r.note else "")
            table.append(
                [
                    figure,
                    fmt(r.value, r.unit),
                    ref,
                    "—" if ratio is None else f"{ratio:.3g}×",
                    r.target,
                    ok,
                ]
            )
    widths = [max(len(str(row[i])) for row in [header] + table) for i in range(len(header))]
    lines.append("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in table:
        lines.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("only", nargs="*", help="run the modules whose names contain these")
    args = parser.parse_args(argv)
    print(
        f"Pivotal benchmarks on {platform.machine()}, Python {platform.python_version()}, "
        f"{platform.node()}",
        file=sys.stderr,
    )
    results = collect(args.only)
    print(render(results))
    failed = [n for n, rows in results if isinstance(rows, str)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
