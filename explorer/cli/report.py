"""``turnscope report PATH... [--session ID] --format html|md OUT``: one self-contained file
with what Turnscope found (explorer.report)."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.cli import messages
from explorer.cli.inputs import open_inputs
from explorer.model import Order
from explorer.report import FORMATS, write_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The report subcommand's own arguments."""
    p.add_argument("paths", nargs="+", metavar="PATH... OUT",
                   help="log files (--demo for the demo data), then the file to write")
    p.add_argument("--format", required=True, choices=tuple(FORMATS), help="html or md")
    p.add_argument("--session", metavar="ID", help="this session only (default: all)")
    p.add_argument("--db", metavar="PATH", help="DuckDB file to import into and read")
    p.add_argument("--strategy", default="M1", help="the strategy whose view each session "
                   "shows (M1)")
    p.add_argument("--budget", type=int, default=4000, help="its budget in tokens (4000)")
    p.add_argument("--sweep-csv", metavar="FILE", help="also write the rows of the report's "
                   "corpus sweep (the plots' figures) as CSV, as sweep --csv writes them")


def run_report(args: argparse.Namespace) -> int:
    """Run the report subcommand; returns the exit status."""
    args.paths, out = args.paths[:-1], Path(args.paths[-1])
    store, status = open_inputs(args, "report")
    if store is None:
        return status
    try:
        report = write_report(store, [str(p) for p in args.paths] or [str(args.db)],
                              args.session, args.format, out, Order(args.order),
                              args.strategy, args.budget, args.sweep_csv)
    except (OSError, ValueError) as exc:
        messages.error("report", exc)
        return 2
    messages.say(f"wrote {out} ({args.format}): {len(report.sessions):,} sessions, "
                 f"{sum(len(f) for f in report.findings.values()):,} findings"
                 + (f"; sweep rows in {args.sweep_csv}" if args.sweep_csv else ""))
    return status
