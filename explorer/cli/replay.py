"""``turnscope replay``: one session replayed call by call (REPLAY.md, "Command line")."""

from __future__ import annotations

import argparse
import json

from explorer.cli.compaction import _error, _settings, strategy_help
from explorer.cli.inputs import open_inputs
from explorer.compaction import SessionLog, transforms
from explorer.model import CostSettings, Order
from explorer.providers.replay_checks import ReplayJudge
from explorer.providers.rules import parse_providers
from explorer.providers.sweep_figures import figure_names
from explorer.replay.run import ReplayLog, replay
from explorer.tokens.counts import checked
from explorer.tokens.session_events import session_events

TRIGGER_HELP = ("always, turns:N, tokens:T, messages:N, fraction:F:W, or A|B (REPLAY.md); "
                "ignored by --strategy recorded")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--session", required=True, help="the session id")
    p.add_argument("--trigger", default="always", help=f"{TRIGGER_HELP} (always)")
    p.add_argument("--strategy", default="M1", help=f"strategy (M1); {strategy_help()}")
    p.add_argument("--budget", type=int, default=None,
                   help="budget in tokens: a budgeted strategy's parameter, and what `over` "
                        "is measured against (none: over is null)")
    p.add_argument("--provider", default=None, metavar="P,P|all",
                   help="add rejected_<provider> to each call (the provider rejects its "
                        "request, PROVIDERS.md) and the calls each rejects to the figures")
    p.add_argument("--json", action="store_true", help="one JSON object")


def run_replay(args: argparse.Namespace) -> int:
    try:
        costs = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
        if args.budget is not None and args.budget < 1:
            raise ValueError("the budget is a positive number of tokens")
        providers = parse_providers(args.provider) if args.provider is not None else ()
    except ValueError as exc:
        return _error("replay", str(exc))
    store, status = open_inputs(args, "replay")
    if store is None:
        return status
    frame = session_events(store, args.session, Order(args.order), costs)
    if frame.height == 0:
        return _error("replay", f"no session {args.session!r} in the input")
    try:
        settings = _settings(args)
        log = transforms.for_log(store, SessionLog.from_frame(args.session, frame), settings, costs)
        rp = replay(ReplayLog.from_frame(args.session, frame, log), args.trigger,
                    args.strategy, args.budget, settings,
                    judge=ReplayJudge(providers) if providers else None)
    except ValueError as exc:
        return _error("replay", str(exc))
    if args.json:
        out = rp.as_dict()
        print(json.dumps({"session_id": out["session_id"], "trigger": out["trigger"],
                          "strategy": out["strategy"], "budget": out["budget"],
                          "order": args.order, "calls": out["calls"],
                          "figures": out["figures"]}))
        return status
    names = figure_names(providers)
    heads = [n.removeprefix("rejected_").ljust(7) for n in names]
    print(f"{'call':>5} {'event':>9} {'cost':>8} {'compacted':>9} {'dropped':>7} "
          f"{'orph_res':>8} {'orph_call':>9} {'empty':>5} {'over':>5}"
          + "".join(f" {h:>{len(h)}}" for h in heads))
    for c in rp.calls:
        f = c.figures
        event = f"{f['event']['seq']}" + (f".{f['event']['sub']}" if f["event"]["sub"] else "")
        over = "-" if f["over"] is None else ("yes" if f["over"] else "no")
        print(f"{f['index']:>5} {event:>9} {f['cost']:>8} {'yes' if f['compacted'] else '':>9} "
              f"{f['dropped']:>7} {f['orphan_results']:>8} {f['orphan_calls']:>9} "
              f"{'yes' if f['empty'] else '':>5} {over:>5}"
              + "".join(f" {'rejects' if f[n] else 'ok':>{len(h)}}" for n, h in zip(names, heads))
              + ("  recorded compaction" if c.recorded else ""))
    print(" ".join(f"{k}={'null' if v is None else v}" for k, v in rp.figures.items()))
    return status
