"""What the window shows of a replay (REPLAY.md): a call's request laid over the turn tree
as a :class:`ViewOverlay`, and the series of the context-size plot over calls."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.log import CALL, RESULT
from explorer.model import KINDS
from explorer.providers.sweep_figures import figure_name
from explorer.replay.run import Replay
from explorer.session.preview import front_label
from explorer.session.view_overlay import SyntheticItem, ViewOverlay


def request_overlay(rp: Replay, j: int) -> ViewOverlay:
    """Call ``j``'s request over the session's rows: the events in memory, the synthetic
    items after the event they follow, each orphan flagged. Rows from the call's event on
    are not in view (the model had not seen them yet)."""
    log, m = rp.rlog.log, rp.request(j)
    in_view = np.zeros(log.n, dtype=bool)
    src = m.src.tolist()
    in_view[[s for s in src if s >= 0]] = True
    errors: dict[int, tuple[str, ...]] = {}
    calls_seen, results_seen = set(), set()
    kinds, ids = m.kind.tolist(), m.call.tolist()
    for s, k, c in zip(src, kinds, ids):
        if c < 0:
            continue
        if k == CALL:
            calls_seen.add(c)
        elif k == RESULT and c not in calls_seen and s >= 0:
            errors[s] = ("orphan_result",)
    for s, k, c in reversed(list(zip(src, kinds, ids))):
        if c < 0:
            continue
        if k == RESULT:
            results_seen.add(c)
        elif k == CALL and c not in results_seen and s >= 0:
            errors[s] = errors.get(s, ()) + ("orphan_call",)
    synthetic, after = [], None
    dropped = int(np.count_nonzero(~in_view[:rp.calls[j].position]))
    for s, k, cost in zip(src, kinds, m.cost.tolist()):
        if s >= 0:
            after = s
            continue
        kind = KINDS[k]
        label = ("placeholder RESULT" if kind == "RESULT"
                 else front_label(kind, int(cost), dropped))
        synthetic.append(SyntheticItem(after, kind, int(cost), f"call {j}: {label}"))
    f = rp.calls[j].figures
    metrics = {k: f[k] for k in ("cost", "over", "empty", "orphan_results", "orphan_calls")}
    return ViewOverlay(rp.strategy.text, int(rp.budget or 0), in_view, errors,
                       tuple(synthetic), metrics)


@dataclass(frozen=True)
class Sawtooth:
    """The context-size plot: the request cost of each call, the calls where a simulated
    compaction happened, those where the log recorded one, and the trigger's threshold
    (tokens, None when the trigger is not a token one)."""

    cost: np.ndarray
    compacted: np.ndarray
    recorded: np.ndarray
    invalid: np.ndarray
    threshold: float | None
    turns: np.ndarray                 # turns each request holds (a turn trigger's count)
    turn_threshold: float | None      # the turn trigger's N (it fires above it)


def sawtooth(rp: Replay) -> Sawtooth:
    """The plot's arrays, its costs and turns in 32 bits where they fit (the plot keeps
    them: a session of 1.5M calls holds 11 MB less)."""
    calls = rp.calls
    cost = _in_32_bits(calls.column("cost"))
    compacted = np.flatnonzero(calls.column("compacted")).astype(np.int64)
    recorded = np.flatnonzero(calls.column("recorded")).astype(np.int64)
    invalid = calls.invalid().astype(np.int64)
    simulated = rp.strategy.family != "recorded"
    costs = [v * w if name == "fraction" else v for name, v, w in rp.trigger.parts
             if name in ("tokens", "fraction")]
    turns = [v for name, v, _ in rp.trigger.parts if name == "turns"]
    return Sawtooth(cost, compacted, recorded, invalid,
                    min(costs) if costs and simulated else None,
                    _in_32_bits(calls.column("turns")),
                    min(turns) if turns and simulated else None)


def _in_32_bits(values: np.ndarray) -> np.ndarray:
    """``values`` (int64, >= 0) as int32 when the largest fits, else as they are."""
    return values.astype(np.int32) if values.max(initial=0) < 2**31 else values


def rejected_calls(rp: Replay, provider: str) -> np.ndarray:
    """The calls whose request ``provider`` rejects (the replay was judged for it: REPLAY.md,
    ``rejected_<provider>``); empty when it was not."""
    name = figure_name(provider)
    flags = rp.calls.extra.get(name)
    return np.flatnonzero(flags).astype(np.int64) if flags is not None \
        else np.zeros(0, dtype=np.int64)


def first_rejected_call(rp: Replay, provider: str | None) -> int | None:
    """The first invalid call (orphan result or call, REPLAY.md) without a provider; with
    one, the first call whose request that provider rejects."""
    if provider is None:
        return rp.figures["first_invalid_call"]
    calls = rejected_calls(rp, provider)
    return int(calls[0]) if len(calls) else None
