"""What a strategy decides for one view, and the metrics and items of that view.

A strategy returns a :class:`Window`: the cut (the kept suffix starts there), whether
SYSTEM events before it stay pinned, synthetic items, and its flags. :func:`evaluate`
turns it into the view's items and the metrics of STRATEGIES.md ("Metrics of one view").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.compaction.log import CALL, CONTENT_KINDS, RESULT, SUMMARY, USER, SessionLog


@dataclass
class Window:
    """One strategy's decision for one session and budget."""

    cut: int                                  # first event of the kept suffix (n: none)
    raw_cut: int | None = None                # the cut before alignment (partial_dropped)
    pinned: bool = False                      # SYSTEM events before the cut stay in view
    mask: np.ndarray | None = None            # explicit membership (recorded, archived rows)
    placeholders: tuple[int, ...] = ()        # CALLs followed by a placeholder RESULT
    front: tuple[tuple[str, int], ...] = ()   # synthetic (kind, cost) after pinned SYSTEM
    fallback: bool = False
    partial_dropped: bool = False
    repaired: int = 0


@dataclass(slots=True)
class Item:
    """One item of a view: an event of the log (``index``) or a synthetic one."""

    index: int | None
    seq: int | None
    sub: int | None
    kind: str
    call_id: str | None
    cost: int
    synthetic: bool = False
    pinned: bool = False
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"seq": self.seq, "sub": self.sub, "kind": self.kind, "call_id": self.call_id,
                "cost": self.cost, "synthetic": self.synthetic, "pinned": self.pinned,
                "flags": self.flags}


def in_view(log: SessionLog, w: Window) -> np.ndarray:
    """Which events of the log the view holds."""
    if w.mask is not None:
        return w.mask
    idx = np.arange(log.n)
    keep = idx >= w.cut
    if w.pinned:
        keep |= log.is_system & (idx < w.cut)
    return keep


def evaluate(log: SessionLog, w: Window, budget: int, placeholder_cost: int) -> tuple[list[Item], dict]:
    """The items of the view and its metrics."""
    keep = in_view(log, w)
    metrics, orphan_result, orphan_call = view_metrics(log, w, keep, budget, placeholder_cost)
    return _items(log, w, keep, orphan_result, orphan_call, placeholder_cost), metrics


def view_metrics(log: SessionLog, w: Window, keep: np.ndarray, budget: int,
                 placeholder_cost: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """The metrics of the view (``keep`` = :func:`in_view`), and which events in it are
    orphan results and orphan calls; no items are built (the slider's fast path)."""
    orphan_result, orphan_call = _orphans(log, keep, set(w.placeholders))
    cost = int(log.cost[keep].sum()) + sum(c for _, c in w.front) + placeholder_cost * len(w.placeholders)
    metrics = {
        "cost": cost,
        "over": cost > budget,
        "empty": not bool(np.isin(log.kind[keep], CONTENT_KINDS).any()),
        "orphan_results": int(orphan_result.sum()),
        "orphan_calls": int(orphan_call.sum()),
        "pair_split": _pair_split(log, keep, w.cut),
        "partial_dropped": w.partial_dropped,
        "fallback": w.fallback,
        "repaired": w.repaired,
    }
    return metrics, orphan_result, orphan_call


def _orphans(log: SessionLog, keep: np.ndarray, placeheld: set[int]) -> tuple[np.ndarray, np.ndarray]:
    """RESULTs in view with no CALL of their id earlier in view; CALLs in view with no
    RESULT (or placeholder) of their id later in view. Events without an id: never."""
    orphan_result = np.zeros(log.n, dtype=bool)
    orphan_call = np.zeros(log.n, dtype=bool)
    order, group = log.pair_order, log.pair_group
    if not len(order):
        return orphan_result, orphan_call
    kind, kept = log.kind[order], keep[order]
    calls = ((kind == CALL) & kept).astype(np.int64)
    results = ((kind == RESULT) & kept).astype(np.int64)
    answered = np.isin(order, list(placeheld))  # a placeholder answers its CALL
    calls_before = _group_exclusive_cumsum(calls, group)
    results_after = _group_exclusive_cumsum(results[::-1], group[::-1])[::-1]
    orphan_result[order] = (kind == RESULT) & kept & (calls_before == 0)
    orphan_call[order] = (kind == CALL) & kept & (results_after == 0) & ~answered
    return orphan_result, orphan_call


def _group_exclusive_cumsum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """For each element, the sum of the values before it in its (contiguous) group."""
    total = np.cumsum(values)
    starts = np.r_[True, group[1:] != group[:-1]]
    start_total = (total - values)[starts]
    return total - values - start_total[np.cumsum(starts) - 1]


def _pair_split(log: SessionLog, keep: np.ndarray, cut: int) -> bool:
    """e[cut-1] is a CALL not in the view while a RESULT of its id is (STRATEGIES.md)."""
    if cut <= 0 or cut > log.n:
        return False
    before = cut - 1
    if log.kind[before] != CALL or log.call[before] < 0 or keep[before]:
        return False
    return bool(((log.call == log.call[before]) & (log.kind == RESULT) & keep).any())


def _items(log, w, keep, orphan_result, orphan_call, placeholder_cost) -> list[Item]:
    """The view's items in order: pinned SYSTEM events, front synthetic items, the rest
    (each placeholder right after its CALL)."""
    seq, sub, kind, cost, call_ids = log.columns()
    flagged = {i: [note] for i, note in (log.notes or {}).items()}
    for i in np.flatnonzero(orphan_result).tolist():
        flagged.setdefault(i, []).append("orphan_result")
    for i in np.flatnonzero(orphan_call).tolist():
        flagged.setdefault(i, []).append("orphan_call")
    kept = np.flatnonzero(keep)
    pinned = np.zeros(0, dtype=np.int64)
    if w.mask is None:
        pinned, kept = kept[kept < w.cut], kept[kept >= w.cut]
    elif w.pinned:  # a mask with pinned SYSTEM events (spring-turns with a kept preamble)
        head = (kept < w.cut) & log.is_system[kept]
        pinned, kept = kept[head], kept[~head]
    items = [Item(i, seq[i], sub[i], kind[i], call_ids[i], cost[i], False, True,
                  flagged.get(i, [])) for i in pinned.tolist()]
    items += [Item(None, None, None, k, None, c, True) for k, c in w.front]
    rest = [Item(i, seq[i], sub[i], kind[i], call_ids[i], cost[i], False, False,
                 flagged.get(i, [])) for i in kept.tolist()]
    if not w.placeholders:
        return items + rest
    placeheld = set(w.placeholders)
    for item in rest:
        items.append(item)
        if item.index in placeheld:
            items.append(Item(None, None, None, "RESULT", item.call_id, placeholder_cost, True))
    return items


def starts_inside_turn(log: SessionLog, keep: np.ndarray) -> bool:
    """A recorded view (``keep`` = :func:`in_view`) whose first event after the summary is
    not a USER event."""
    kinds = log.kind[keep]
    after = kinds[kinds != SUMMARY]
    return bool(len(after)) and bool(after[0] != USER)


def key_collapse(log: SessionLog, keep: np.ndarray) -> dict[str, int]:
    """The per-view key-collapse counts of AUDITS.md: mixed (0/1), turn collisions and
    duplicate call ids in the view. Null user_ids and logged turns are ignored."""
    users = log.user[keep]
    mixed = int(len(np.unique(users[users >= 0])) > 1)
    with_both = keep & (log.user >= 0) & (log.turn >= 0)
    pairs = np.unique(np.stack([log.turn[with_both], log.user[with_both]]), axis=1)
    _, per_turn = np.unique(pairs[0], return_counts=True) if pairs.size else ((), np.zeros(0))
    calls = log.call[keep & (log.kind == CALL) & (log.call >= 0)]
    _, per_id = np.unique(calls, return_counts=True)
    return {"mixed_windows": mixed,
            "window_turn_collisions": int(np.count_nonzero(per_turn > 1)),
            "window_duplicate_call_ids": int(np.count_nonzero(per_id > 1))}
