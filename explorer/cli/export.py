"""``turnscope export``: import the given logs (or open a database) and write them out as
ATIF, OpenTelemetry GenAI OTLP JSON or canonical JSON Lines (explorer.export)."""

from __future__ import annotations

import argparse

from explorer.cli import messages
from explorer.cli.inputs import open_inputs
from explorer.export import WRITERS, ExportError, export


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The export subcommand's own arguments."""
    # "PATH... OUT": one list, the last is the file to write (options may come anywhere)
    p.add_argument("paths", nargs="+", metavar="PATH... OUT",
                   help="log files (--demo for the demo data), then the file to write")
    p.add_argument("--to", required=True, choices=tuple(WRITERS), help="the format to write")
    p.add_argument("--session", metavar="ID", help="export this session only (default: all)")
    p.add_argument("--db", metavar="PATH", help="DuckDB file to import into and export from")


def run_export(args: argparse.Namespace) -> int:
    """Run the export subcommand; returns the exit status."""
    args.paths, args.out = args.paths[:-1], args.paths[-1]
    store, status = open_inputs(args, "export")
    if store is None:
        return status
    try:
        done = export(store, args.to, args.out, args.session)
    except (ExportError, OSError, ValueError) as exc:
        messages.error("export", exc)
        return 2
    messages.say(f"wrote {done.sessions:,} sessions, {done.events:,} events and "
                 f"{done.findings:,} findings to {done.path} ({args.to})")
    return status
