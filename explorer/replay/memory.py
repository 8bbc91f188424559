"""A framework's memory during a replay (REPLAY.md, "Memory, triggers and compaction").

A memory is items in order, each an event of the log (``src`` its index) or a synthetic
item a strategy wrote (``src`` -1: a summary, the prompt asking for it, a placeholder
RESULT, with its kind, cost and, for a placeholder, the call id it answers). A strategy
reads a memory as if it were a whole log: :func:`as_log` makes one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.log import OTHER, SYSTEM, SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.window import in_view, view_items
from explorer.model import KINDS
from explorer.replay.triggers import Reading

_KIND_CODES = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True)
class Memory:
    """Items in order: parallel arrays (``src`` -1 for a synthetic item)."""

    src: np.ndarray
    kind: np.ndarray
    cost: np.ndarray
    call: np.ndarray     # call id code (the log's numbering), -1 for none

    @classmethod
    def empty(cls) -> Memory:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z)

    def __len__(self) -> int:
        return len(self.src)

    def take(self, rows) -> Memory:
        return Memory(self.src[rows], self.kind[rows], self.cost[rows], self.call[rows])

    def join(self, other: Memory) -> Memory:
        return Memory(*(np.concatenate([a, b]) for a, b in zip(
            (self.src, self.kind, self.cost, self.call),
            (other.src, other.kind, other.cost, other.call))))

    def same(self, other: Memory) -> bool:
        return len(self) == len(other) and bool(np.array_equal(self.src, other.src)) \
            and bool(np.array_equal(self.kind, other.kind)) \
            and bool(np.array_equal(self.cost, other.cost))

    @property
    def synthetic(self) -> np.ndarray:
        return self.src < 0


def events(log: SessionLog, idx: np.ndarray) -> Memory:
    """The log's events ``idx`` as memory items."""
    idx = np.asarray(idx, dtype=np.int64)
    return Memory(idx, log.kind[idx].astype(np.int64), log.cost[idx].astype(np.int64),
                  log.call[idx].astype(np.int64))


def reading(log: SessionLog, opens_turn: np.ndarray, m: Memory) -> Reading:
    """What a trigger reads of ``m``: its cost (every item), its turn-opening USER events
    that are neither synthetic nor on a branch (``opens_turn``), and its messages among the
    items other than SYSTEM and OTHER (a synthetic item is a message by itself)."""
    ev = m.src >= 0
    turns = int(np.count_nonzero(opens_turn[m.src[ev]]))
    body = (m.kind != SYSTEM) & (m.kind != OTHER)
    ids = np.where(ev, log.message[np.where(ev, m.src, 0)], -1)[body]
    same = np.r_[False, (ids[1:] == ids[:-1]) & (ids[1:] >= 0)] if len(ids) else ids
    return Reading(int(m.cost.sum()), turns, int(len(ids) - np.count_nonzero(same)))


class Names:
    """A log's call id codes and their strings, both ways (placeholders carry an id)."""

    def __init__(self, log: SessionLog) -> None:
        self.names: dict[int, str] = {}
        for code, name in zip(log.call.tolist(), log.call_ids):
            if code >= 0:
                self.names.setdefault(code, name)
        self.codes = {v: k for k, v in self.names.items()}


def as_log(log: SessionLog, names: Names, m: Memory) -> SessionLog:
    """The memory as a log a strategy reads: its events' columns, and the synthetic items
    as events of their kind and cost with no message, user or turn."""
    ev = m.src >= 0
    s = np.where(ev, m.src, 0)

    def take(a, fill):
        return np.where(ev, a[s], fill) if len(a) else np.full(len(s), fill, dtype=np.int64)

    src = m.src.tolist()
    return SessionLog(
        session_id=log.session_id, seq=take(log.seq, -1), sub=take(log.sub, -1),
        kind=m.kind, cost=m.cost, call=m.call, message=take(log.message, -1),
        user=take(log.user, -1), turn=take(log.turn, -1),
        archived=np.zeros(len(m), dtype=bool),
        call_ids=[names.names.get(c) for c in m.call.tolist()],
        tools=[log.tools[i] if i >= 0 else None for i in src],
        chars=take(log.chars, 0), eid=take(log.eid, -1) if log.eid is not None else None)


def compact(log: SessionLog, names: Names, m: Memory, strategy: Strategy, budget: int,
            settings: CompactionSettings) -> Memory:
    """The strategy's view of ``m`` read as a whole log: the memory that replaces it.

    ``spring-*`` strategies set the earlier synthetic items aside (out of their counts and
    budgets) and pin them after the pinned SYSTEM events, unless a ``spring-summary``
    compaction writes new ones in their place."""
    spring = strategy.family.startswith("spring-")
    kept_synthetic = m.take(m.synthetic) if spring else Memory.empty()
    body = m.take(~m.synthetic) if spring else m
    sub = as_log(log, names, body)
    w = strategy.decide(sub, budget, settings)
    keep = in_view(sub, w)
    none = np.zeros(sub.n, dtype=bool)
    items = view_items(sub, w, keep, none, none, settings.placeholder_cost)
    rows, synthetic = [], []
    for item in items:
        if item.index is not None:
            rows.append((int(item.index), None))
        else:
            rows.append((-1, (_KIND_CODES[item.kind], int(item.cost),
                              names.codes.get(item.call_id, -1) if item.call_id else -1)))
            synthetic.append(len(rows) - 1)
    out = _rows(body, rows)
    if spring and len(kept_synthetic) and not w.front:
        pinned = sum(1 for item in items if item.pinned)
        if not pinned:  # nothing was cut: after the leading SYSTEM events
            lead = out.kind != SYSTEM
            pinned = int(np.argmax(lead)) if lead.any() else len(out)
        out = out.take(np.arange(pinned)).join(kept_synthetic).join(
            out.take(np.arange(pinned, len(out))))
    return out


def _rows(body: Memory, rows: list) -> Memory:
    src, kind, cost, call = [], [], [], []
    for index, synthetic in rows:
        if synthetic is None:
            src.append(int(body.src[index]))
            kind.append(int(body.kind[index]))
            cost.append(int(body.cost[index]))
            call.append(int(body.call[index]))
        else:
            src.append(-1)
            kind.append(synthetic[0])
            cost.append(synthetic[1])
            call.append(synthetic[2])
    arrays = [np.array(a, dtype=np.int64) for a in (src, kind, cost, call)]
    return Memory(*arrays)
