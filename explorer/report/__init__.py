"""Reports (issue 20): what Turnscope found, in one self-contained file people can share.

:func:`explorer.report.content.build` gathers it (the corpus audit table, the findings by
rule, per session the turn tree as text with its marks, the provider check and the cost
curve); :mod:`explorer.report.html` and :mod:`explorer.report.markdown` write it. Every log
text is made visible (explorer.text_escape) and escaped for the format: a report of a
hostile log is as safe as the window. Plots are SVG written here (no Qt in the core).
"""

from __future__ import annotations

from pathlib import Path

from explorer.compaction.sweep_csv import write_csv
from explorer.model import Order
from explorer.report import html, markdown
from explorer.report.content import Report, build
from explorer.store.db import Db

#: The report formats by ``--format`` name.
FORMATS = {"html": html, "md": markdown}


def write_report(db: Db, sources: list[str], session_id: str | None, fmt: str,
                 out: str | Path, order: Order = Order.SEQ, strategy: str = "M1",
                 budget: int = 4000, sweep_csv: str | Path | None = None) -> Report:
    """Build the report and write it to ``out`` as ``fmt`` (whole or not at all);
    ``sweep_csv``: also write the rows of its corpus sweep there as CSV (``sweep --csv``'s)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (one of {', '.join(FORMATS)})")
    report = build(db, sources, session_id, order, strategy, budget)
    _write_whole(out, lambda fh: FORMATS[fmt].write(fh, report))
    if sweep_csv is not None and report.sweep is not None:
        sweep = report.sweep
        _write_whole(sweep_csv, lambda fh: write_csv(fh, sweep.rows, ("strategy", "budget", *sweep.columns())))
    return report


def _write_whole(out: str | Path, write) -> None:
    """``write(fh)`` into ``out``, whole or not at all (a part file renamed at the end)."""
    out = Path(out)
    part = out.with_name(out.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="") as fh:
            write(fh)
        part.replace(out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


__all__ = ["FORMATS", "Report", "build", "write_report"]
