"""The results table every benchmark prints: target, measured figure, same-run baseline, ratio, verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One line of a results table."""

    target: str
    measured: str
    baseline: str
    ratio: str
    ok: bool | None


def print_table(rows: Sequence[Row]) -> None:
    """The rows as an aligned text table."""
    header = ("target", "measured", "baseline (same run)", "ratio", "ok")
    cells = [header] + [
        (r.target, r.measured, r.baseline, r.ratio, "-" if r.ok is None else ("yes" if r.ok else "NO")) for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for i, row in enumerate(cells):
        print("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
