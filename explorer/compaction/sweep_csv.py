"""The corpus sweep's rows as CSV (``sweep --csv``, a report's ``--sweep-csv``): a header
row, then per (strategy, budget) its figures; a ratio with six decimals."""

from __future__ import annotations

import csv
from typing import TextIO


def cell(value):
    """A figure as written in the CSV."""
    return f"{value:.6f}" if isinstance(value, float) else value


def write_csv(fh: TextIO, rows: list[dict], columns) -> None:
    """``rows`` (sweep's) with ``columns`` after strategy and budget."""
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(["strategy", "budget", *columns])
    writer.writerows([[r["strategy"], r["budget"], *(cell(r[f]) for f in columns)]
                      for r in rows])
