"""``turnscope validate``: would each provider accept the recorded sessions, or a
strategy's views of them (PROVIDERS.md, "Where the rules are used")?"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli import junit
from explorer.cli.compaction import _settings, add_settings_arguments, strategy_help
from explorer.cli.inputs import open_inputs
from explorer.compaction import SessionLog, transforms
from explorer.model import CostSettings, Order
from explorer.providers import LABELS, parse_providers
from explorer.providers.session_check import check_session
from explorer.text_escape import visible
from explorer.tokens.counts import checked
from explorer.tokens.session_events import session_events


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", default="all",
                   help="comma-separated providers or all (default): anthropic, bedrock, "
                        "openai-chat, openai-responses, gemini")
    p.add_argument("--strategy", default=None,
                   help=f"check this strategy's view (default: the whole log as recorded); "
                        f"{strategy_help()}")
    p.add_argument("--budget", type=int, default=4000, help="budget in tokens (4000)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per (session, provider), as JSON Lines")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report (one test "
                   "case per session, failing with its violations)")
    add_settings_arguments(p)


def run_validate(args: argparse.Namespace) -> int:
    try:
        providers = parse_providers(args.provider)
        costs = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
        if args.strategy is not None:
            from explorer.compaction import Strategy
            Strategy.parse(args.strategy)
            if args.budget < 1:
                raise ValueError("the budget is a positive number of tokens")
    except ValueError as exc:
        messages_error(str(exc))
        return 2
    store, status = open_inputs(args, "validate")
    if store is None:
        return status
    settings = _settings(args)
    order = Order(args.order)
    rejected, cases = False, []
    out = sys.stdout
    for (name,) in store.run("sessions_in_input_order"):
        frame = session_events(store, name, order, costs, texts=False)
        log = SessionLog.from_frame(name, frame)
        if args.strategy is not None:
            log = transforms.for_log(store, log, settings, costs)
        found = check_session(log, providers, args.strategy, args.budget, settings)
        lines = []
        for provider, vs in found.items():
            rejected |= bool(vs)
            if args.json:
                out.write(json.dumps({"session_id": name, "provider": provider,
                                      "accepted": not vs,
                                      "violations": [v.as_dict() for v in vs]},
                                     ensure_ascii=False) + "\n")
            lines += [f"{provider} {v.rule} messages.{v.message_index}"
                      + ("" if v.content_index is None else f".content.{v.content_index}")
                      + f": {v.text} [events {_events(v.events)}]" for v in vs]
            if not args.json:
                print_verdict(out, name, provider, [(v.rule, v.text, v.events) for v in vs])
        cases.append((name, lines))
    if args.junit:
        junit.write(args.junit, "validate", cases)
    return status or (1 if rejected else 0)


def _events(events) -> str:
    return ", ".join("synthetic" if seq is None else f"{seq}" + (f".{sub}" if sub else "")
                     for seq, sub in events)


def print_verdict(out, name: str, provider: str, vs: list[tuple]) -> None:
    """A session's verdict for one provider as text: accepted, or each violation
    (rule, text, events) on a line of its own."""
    label = LABELS[provider]
    if not vs:
        out.write(visible(f"{name}  {provider}: accepted") + "\n")
        return
    out.write(visible(f"{name}  {provider}: {label} would reject this request: "
                      f"{len(vs)} error(s)") + "\n")
    for rule, text, events in vs:
        out.write(visible(f"  {rule}  {text}  [events {_events(events)}]") + "\n")


def messages_error(message: str) -> None:
    from explorer.cli import messages
    messages.error("validate", message)
