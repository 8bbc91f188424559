"""What a strategy decides for one view, and the items of that view.

A strategy returns a :class:`Window`: the cut (the kept suffix starts there), whether
SYSTEM events before it stay pinned, synthetic items, and its flags. :func:`view_items`
turns it into the view's items; its metrics are those of the one-session corpus decision
it is read off (:func:`explorer.compaction.strategies.one_session.metrics_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from explorer.compaction.log import SUMMARY, USER, SessionLog

if TYPE_CHECKING:
    from explorer.compaction.strategies.decision import Decision


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
    #: the one-session corpus decision this window is read off (its metrics come from it)
    decision: Decision | None = field(default=None, compare=False, repr=False)


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
    keep = np.zeros(log.n, dtype=bool)   # no position per event made
    keep[w.cut:] = True
    if w.pinned:
        keep[:w.cut] = log.is_system[:w.cut]
    return keep


def view_items(log: SessionLog, w: Window, keep: np.ndarray, orphan_result: np.ndarray,
               orphan_call: np.ndarray, placeholder_cost: int) -> list[Item]:
    """The view's items in order (``keep`` = :func:`in_view`, the orphan masks from its
    metrics): pinned SYSTEM events, front synthetic items, the rest (each placeholder
    right after its CALL)."""
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
