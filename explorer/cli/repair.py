"""``turnscope repair PATH --session ID OUT``: import the log, plan the session's repair
(explorer.repair) and write the corrected copy in the source's own format."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli import messages
from explorer.cli.inputs import open_inputs
from explorer.providers import PROVIDERS
from explorer.repair import ORPHANS, UNANSWERED, RepairError, plan, repair


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The repair subcommand's own arguments."""
    p.add_argument("path", metavar="PATH", help="the log file holding the session")
    p.add_argument("out", metavar="OUT", help="the repaired copy to write (never PATH)")
    p.add_argument("--session", required=True, metavar="ID", help="the session to repair")
    p.add_argument("--orphans", choices=ORPHANS, default="drop",
                   help="orphan results: drop them (default) or keep them as plain text")
    p.add_argument("--unanswered", choices=UNANSWERED, default="placeholder",
                   help="unanswered calls: answer them with a placeholder result saying the "
                        "call was interrupted (default), or drop them")
    p.add_argument("--provider", choices=PROVIDERS, default=None,
                   help="also remove every violation of this provider's rules (PROVIDERS.md)")
    p.add_argument("--json", action="store_true",
                   help="print the changes as JSON Lines: {action, seq, sub, kind, call_id, "
                        "reason, line, text}")
    p.add_argument("--db", metavar="PATH", help="DuckDB file to import into and read")


def run_repair(args: argparse.Namespace) -> int:
    """Run the repair subcommand; 0 when written with nothing left, 1 when violations of the
    provider are left (written anyway), 2 on an input error."""
    args.paths = [args.path]
    store, status = open_inputs(args, "repair", strict=True)
    if store is None:
        return status
    try:
        found = plan(store, args.session, args.orphans, args.unanswered, args.provider)
        written = repair(store, found, args.out)
    except (RepairError, OSError, ValueError) as exc:
        messages.error("repair", exc)
        return 2
    if args.json:
        for change in found.changes:
            sys.stdout.write(json.dumps(change.as_dict(), ensure_ascii=False) + "\n")
    counts = found.counts()
    messages.say(f"wrote {written} ({found.format}): {counts['drop']:,} events dropped, "
                 f"{counts['text']:,} made text, {counts['add']:,} placeholder results added")
    for v in found.left:
        messages.say(f"left: {v.rule} {v.text}")
    return 1 if found.left else 0
