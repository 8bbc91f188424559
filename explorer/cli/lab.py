"""``turnscope lab NAME``: the three experiments of LAB.md, each a table (``--json``)."""

from __future__ import annotations

import argparse
import json

from explorer.cli import messages
from explorer.lab import estimates, frames, trigger_gap


def add_arguments(lab: argparse.ArgumentParser, common, verbose) -> None:
    """The lab's subcommands; ``common(p)`` adds the input flags (--order, ratios, limits,
    --verbose), ``verbose(p)`` --verbose alone."""
    sub = lab.add_subparsers(dest="experiment", metavar="{trigger-gap,frames,estimates}",
                             required=True)
    gap = sub.add_parser("trigger-gap", help="the check-act gap of a turn-count trigger")
    gap.add_argument("--cases", default=",".join(":".join(map(str, c))
                                                 for c in trigger_gap.DEFAULT_CASES),
                     help="comma-separated maxTurns:W:G (LAB.md's table)")
    gap.add_argument("--slots", type=int, default=trigger_gap.DEFAULT_SLOTS,
                     help=f"arrival slots per case ({trigger_gap.DEFAULT_SLOTS})")
    fr = sub.add_parser("frames", help="JSON Lines against length prefix + CRC-32 frames")
    fr.add_argument("--records", type=int, default=200_000, help="records written (200000)")
    fr.add_argument("--ks", default=",".join(map(str, frames.DEFAULT_KS)),
                    help="comma-separated K: complete records before the damage")
    est = sub.add_parser("estimates", help="which sweep figures depend on the token estimate")
    est.add_argument("paths", nargs="*", metavar="PATH", help="log files; --demo for the demo data")
    est.add_argument("--db", metavar="PATH", help="DuckDB file to import into and read")
    est.add_argument("--estimates", default=estimates.DEFAULT_ESTIMATES,
                     help=f"comma-separated CJK:OTHER ratios or tokenizers "
                          f"({estimates.DEFAULT_ESTIMATES})")
    est.add_argument("--strategies", default="M0,M1,M2,M3,M4", help="strategies (M0-M4)")
    est.add_argument("--budgets", default="400,1600,4000,8000", help="budgets")
    common(est)
    verbose(gap)
    verbose(fr)
    for p in (gap, fr, est):
        p.add_argument("--seed", type=int, default=1, help="random seed (1)")
        p.add_argument("--json", action="store_true", help="the table as a JSON array")


def _error(message: str) -> int:
    messages.error("lab", message)
    return 2


def run_lab(args: argparse.Namespace) -> int:
    try:
        if args.experiment == "trigger-gap":
            cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",") if c]
            if any(len(c) != 3 for c in cases):
                raise ValueError("a case is maxTurns:W:G")
            rows, keys = trigger_gap.run(cases, args.slots, args.seed), trigger_gap.KEYS
        elif args.experiment == "frames":
            rows, keys = frames.run(lab_records(args.records, args.seed),
                                    [int(k) for k in args.ks.split(",") if k]), frames.KEYS
        else:
            return _estimates(args)
    except ValueError as exc:
        return _error(str(exc))
    if args.json:
        print(json.dumps(rows))
    else:
        _table(rows, keys)
    return 0


def lab_records(n: int, seed: int) -> list[bytes]:
    """``n`` generated events of FORMAT.md as their JSON objects."""
    from explorer.cli.generate import generate_table, json_records
    if n < 2:
        raise ValueError("write at least 2 records")
    sessions = max(1, n // 50)
    while True:
        records = json_records(generate_table(sessions=sessions, turns=10, seed=seed))
        if len(records) >= n:
            return records[:n]
        sessions *= 2


def _estimates(args) -> int:
    from explorer.cli.inputs import open_inputs
    from explorer.model import Order
    try:
        chosen = estimates.parse_estimates(args.estimates)
        strategies = [s for s in args.strategies.split(",") if s]
        budgets = [int(b) for b in args.budgets.split(",") if b]
    except ValueError as exc:
        return _error(str(exc))
    store, status = open_inputs(args, "lab")
    if store is None:
        return status
    try:
        rows = estimates.run(store, chosen, strategies, budgets, Order(args.order))
    except ValueError as exc:
        return _error(str(exc))
    if args.json:
        print(json.dumps(rows))
        return status
    names = [name for name, _ in chosen]
    print("each cell: the figure under " + " / ".join(names) + "; * where they differ")
    figures = list(rows[0]["figures"]) if rows else []
    table = [{"strategy": r["strategy"], "budget": r["budget"],
              **{f: "/".join(str(r["figures"][f][n]) for n in names)
                 + ("*" if f in r["changed"] else "") for f in figures}} for r in rows]
    _table(table, ("strategy", "budget", *figures))
    return status


def _table(rows: list[dict], keys) -> None:
    heads = [k.replace("window_", "w_") for k in keys]
    widths = [max(len(h), *(len(str(r[k])) for r in rows)) for k, h in zip(keys, heads)]
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, widths)))
    for r in rows:
        print(" ".join(f"{r[k]!s:>{w}}" for k, w in zip(keys, widths)))
