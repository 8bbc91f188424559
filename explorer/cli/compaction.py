"""``turnscope sweep`` and ``turnscope view``: compaction previews on the command line."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli import messages
from explorer.cli.inputs import open_inputs
from explorer.compaction import CompactionSettings, SessionLog, transforms, view
from explorer.compaction.settings import EVICT_EXCLUDED, PRUNE_EXCLUDED
from explorer.compaction.strategies import FAMILIES
from explorer.compaction.sweep import FIGURES, VECTORIZED, sweep
from explorer.compaction.sweep_csv import cell, write_csv
from explorer.model import CostSettings, Order
from explorer.providers.rules import parse_providers
from explorer.providers.sweep_figures import figure_names, rejected_figures
from explorer.text_escape import visible
from explorer.tokens.counts import checked
from explorer.tokens.session_events import session_events


def add_arguments(sweep_parser: argparse.ArgumentParser, view_parser: argparse.ArgumentParser) -> None:
    """The flags of STRATEGIES.md ("On the command line") and the settings of both commands."""
    sweep_parser.add_argument("--budgets", default="400,1600,4000,8000",
                              help="comma-separated budgets in tokens (400,1600,4000,8000)")
    sweep_parser.add_argument("--strategies", default=",".join(VECTORIZED),
                              help=f"comma-separated strategies ({','.join(VECTORIZED)}); "
                                   f"{strategy_help()}")
    sweep_parser.add_argument("--provider", default=None, metavar="P,P|all",
                              help="add rejected_<provider>: the windows each provider "
                                   "rejects (PROVIDERS.md)")
    sweep_parser.add_argument("--trigger", default=None, metavar="T[,T...]",
                              help="replay every session under each trigger (REPLAY.md: always, "
                                   "turns:N, tokens:T, messages:N, fraction:F:W, A|B) and give "
                                   "the replay's corpus figures")
    out = sweep_parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="an array of objects")
    out.add_argument("--csv", action="store_true", help="CSV with a header row")
    view_parser.add_argument("--session", required=True, help="the session id")
    view_parser.add_argument("--strategy", default="M1", help=f"strategy (M1); {strategy_help()}")
    view_parser.add_argument("--budget", type=int, default=4000, help="budget in tokens (4000)")
    view_parser.add_argument("--json", action="store_true", help="one JSON object")
    for p in (sweep_parser, view_parser):
        add_settings_arguments(p)


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    """The compaction settings' flags (STRATEGIES.md), shared by sweep, view, validate and
    replay."""
    p.add_argument("--no-latest-turn", action="store_true",
                   help="keep_latest_turn off (spring-events/-tokens/-summary)")
    p.add_argument("--summary-cost", type=int, default=300, help="synthetic SUMMARY cost (300)")
    p.add_argument("--placeholder-cost", type=int, default=8, help="M2 placeholder cost (8)")
    p.add_argument("--evict", action="store_true", help="tool result eviction (AgentScope)")
    p.add_argument("--evict-chars", type=int, default=80_000,
                   help="evict RESULTs over this many characters (80000)")
    p.add_argument("--prune", action="store_true", help="tool result pruning (AgentScope)")
    p.add_argument("--prune-protect", type=int, default=40_000,
                   help="tokens of the newest RESULTs never pruned (40000)")
    p.add_argument("--prune-minimum", type=int, default=20_000,
                   help="prune only when the candidates total this many tokens (20000)")
    p.add_argument("--prune-chars", type=int, default=2_000,
                   help="prune RESULTs over this many characters (2000)")
    p.add_argument("--evict-keep", type=int, default=2_000,
                   help="an evicted RESULT keeps its first and last N characters (2000)")
    p.add_argument("--prune-keep", type=int, default=1_000,
                   help="a pruned RESULT keeps its first and last N characters (1000)")
    p.add_argument("--evict-excluded", default=",".join(EVICT_EXCLUDED),
                   help="comma-separated tools never evicted (AgentScope's list)")
    p.add_argument("--prune-excluded", default=",".join(PRUNE_EXCLUDED),
                   help="comma-separated tools never pruned (AgentScope's list)")


def strategy_help() -> str:
    """What ``--strategy`` accepts, from the registry: each family with its arguments' names."""
    return "one of " + ", ".join(f.text(tuple(a.name for a in f.arguments)) for f in FAMILIES)


def _settings(args) -> CompactionSettings:
    return CompactionSettings(placeholder_cost=args.placeholder_cost,
                              summary_cost=args.summary_cost,
                              keep_latest_turn=not args.no_latest_turn,
                              evict=args.evict, evict_chars=args.evict_chars,
                              prune=args.prune, prune_protect=args.prune_protect,
                              prune_minimum=args.prune_minimum, prune_chars=args.prune_chars,
                              evict_keep=args.evict_keep, prune_keep=args.prune_keep,
                              evict_excluded=_tools(args.evict_excluded),
                              prune_excluded=_tools(args.prune_excluded))


def _tools(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())


def run_sweep(args: argparse.Namespace) -> int:
    try:
        strategies = [s for s in args.strategies.split(",") if s]
        budgets = [int(b) for b in args.budgets.split(",") if b]
        costs = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
        providers = parse_providers(args.provider) if args.provider is not None else ()
    except ValueError as exc:
        return _error("sweep", str(exc))
    store, status = open_inputs(args, "sweep")
    if store is None:
        return status
    if args.trigger:
        return _run_triggered(args, store, status, strategies, budgets, costs, providers)
    more = rejected_figures(providers) if providers else None
    columns = (*FIGURES, *figure_names(providers))
    try:
        rows = sweep(store, strategies, budgets, Order(args.order), costs, _settings(args),
                     more=more)
    except ValueError as exc:
        return _error("sweep", str(exc))
    _write_rows(args, rows, ("strategy", "budget", *columns),
                lambda: _print_table(rows, budgets, columns))
    return status


def _run_triggered(args, store, status, strategies, budgets, costs, providers=()) -> int:
    """``sweep --trigger``: one row per (trigger, strategy, budget) of REPLAY.md's figures,
    and with ``--provider`` the calls each provider rejects (``rejected_<provider>``)."""
    from explorer.providers.replay_checks import ReplayJudge
    from explorer.replay.sweep import FIGURES as REPLAYED
    from explorer.replay.sweep import sweep_triggered
    triggers = [t for t in args.trigger.split(",") if t.strip()]
    judge = ReplayJudge(providers) if providers else None
    try:
        rows = sweep_triggered(store, triggers, strategies, budgets, Order(args.order), costs,
                               _settings(args), judge=judge)
    except ValueError as exc:
        return _error("sweep", str(exc))
    keys = ("trigger", "strategy", "budget", *REPLAYED, *(judge.names if judge else ()))
    _write_rows(args, rows, keys, lambda: _print_flat(rows, keys))
    return status


def _write_rows(args, rows: list[dict], keys: tuple[str, ...], table) -> None:
    """The sweep's rows on stdout: ``--json`` an array, ``--csv`` a header row and a row
    each (``keys``), else the text table ``table()`` prints."""
    if args.json:
        print(json.dumps(rows))
    elif args.csv:
        write_csv(sys.stdout, rows, keys)
    else:
        table()


def _print_flat(rows: list[dict], keys: tuple[str, ...]) -> None:
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    print(" ".join(f"{k:>{w}}" for k, w in zip(keys, widths)))
    for r in rows:
        print(" ".join(f"{r[k]!s:>{w}}" for k, w in zip(keys, widths)))


def _error(command: str, message: str) -> int:
    """Say what went wrong on stderr; the exit status of a failed command."""
    messages.error(command, message)
    return 2



def _print_table(rows: list[dict], budgets: list[int], columns=FIGURES) -> None:
    width = max([8, *(len(r["strategy"]) for r in rows)])
    heads = [f.replace("window_", "w_") for f in columns]
    for budget in budgets:
        print(f"budget {budget}")
        print(" ".join([f"{'strategy':<{width}}", *(f"{h:>{max(len(h), 9)}}" for h in heads)]))
        for r in (r for r in rows if r["budget"] == budget):
            cells = [f"{cell(r[f]):>{max(len(h), 9)}}" for f, h in zip(columns, heads)]
            print(" ".join([f"{r['strategy']:<{width}}", *cells]))
        print()


def run_view(args: argparse.Namespace) -> int:
    try:
        costs = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
        if args.budget < 1:
            raise ValueError("the budget is a positive number of tokens")
    except ValueError as exc:
        return _error("view", str(exc))
    store, status = open_inputs(args, "view")
    if store is None:
        return status
    frame = session_events(store, args.session, Order(args.order), costs)
    if frame.height == 0:
        return _error("view", f"no session {args.session!r} in the input")
    try:
        settings = _settings(args)
        log = transforms.for_log(store, SessionLog.from_frame(args.session, frame), settings, costs)
        items, metrics = view(log, args.strategy, args.budget, settings)
    except ValueError as exc:
        return _error("view", str(exc))
    metrics = {k: (bool(v) if isinstance(v, bool) or type(v).__name__ == "bool_" else v)
               for k, v in metrics.items()}
    if args.json:
        print(json.dumps({"session_id": args.session, "strategy": args.strategy,
                          "budget": args.budget, "order": args.order,
                          "items": [i.as_dict() for i in items], "metrics": metrics}))
        return status
    for item in items:
        seq = "-" if item.seq is None else (f"{item.seq}" + (f".{item.sub}" if item.sub else ""))
        marks = ("synthetic " if item.synthetic else "") + ("pinned " if item.pinned else "")
        print(f"{seq:>8} {item.kind:<9} {visible(item.call_id or ''):<24} {item.cost:>7}  "
              f"{marks}{' '.join(item.flags)}".rstrip())
    print(" ".join(f"{k}={v}" for k, v in metrics.items()))
    return status
