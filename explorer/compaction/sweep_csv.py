"""The corpus sweep's rows as CSV (``sweep --csv``, a report's ``--sweep-csv``): a header
row, then per (strategy, budget) its figures; a ratio with six decimals."""

from __future__ import annotations

import csv
from typing import TextIO


def cell(value):
    """A figure as written in the CSV."""
    return f"{value:.6f}" if isinstance(value, float) else value


def write_csv(fh: TextIO, rows: list[dict], keys) -> None:
    """``rows`` (a sweep's) as a header row of ``keys`` (strategy, budget and the figures;
    a triggered sweep's trigger first) and a row each."""
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(keys)
    writer.writerows([[cell(r[k]) for k in keys] for r in rows])
