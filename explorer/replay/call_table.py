"""The model calls of one replay, kept as columns (REPLAY.md, "Figures").

A session of 3M events makes 1.5M calls: one object and two dicts per call held 1.4 GB
(and each call's tail, the events appended since the last compaction, as its own array:
63M positions more). Here a call is a row of compact columns; its tail is the range
``[tail_from, position)``; :class:`Call` and its ``figures`` dict are made when read.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from explorer.compaction.log import SessionLog
from explorer.replay.memory import Memory, events

#: The per-call keys of ``replay --json`` (REPLAY.md, "Figures").
CALL_KEYS = ("index", "event", "cost", "compacted", "dropped", "orphan_results",
             "orphan_calls", "empty", "over")
#: The columns of a call, and their kinds: ``q`` an int64, ``b`` a flag, ``p`` a position
#: or a count of the log's events (32 bits while it has fewer than 2**31: a replay of 1.5M
#: calls held 42 MB less).
_COLUMNS = {"position": "p", "base": "p", "tail_from": "p", "cost": "q", "dropped": "p",
            "orphan_results": "p", "orphan_calls": "p", "turns": "p", "compacted": "b",
            "empty": "b", "recorded": "b"}
#: The numpy type of each array type code (``i``: a C int, 32 bits).
_DTYPES = {"q": np.int64, "i": np.int32, "b": np.int8}


@dataclass
class Call:
    """One model call: where it is made, what its request holds and its figures."""

    index: int
    position: int              # the event e[i_j] it is made before
    base: Memory               # the memory of the latest compaction (at or before this call)
    tail: np.ndarray           # the events appended since, in order
    figures: dict = field(default_factory=dict)
    recorded: bool = False     # a SUMMARY of the log arrived since the previous call
    turns: int = 0             # turn-opening USER events the request holds (a turn trigger's count)


class Calls(Sequence):
    """The calls of a replay in order, appended one at a time (:meth:`add`), read like a
    list of :class:`Call`. ``budget`` None: ``over`` is None (the strategy takes none).
    ``unarchived``: a call's tail leaves out the archived events (the ``recorded`` replay).
    Figures added after the replay (a provider's ``rejected_<provider>``) are columns of
    :attr:`extra`, after :data:`CALL_KEYS` in each call's figures."""

    def __init__(self, log: SessionLog, budget: int | None, unarchived: bool = False) -> None:
        self.log, self.budget, self.unarchived = log, budget, unarchived
        position = "i" if log.n < 2**31 and array("i").itemsize == 4 else "q"
        self._columns = {name: array(position if code == "p" else code)
                         for name, code in _COLUMNS.items()}
        self.bases: list[Memory | range] = []
        self._made: tuple[int, Memory | None] = (-1, None)   # the last range made a Memory
        self.extra: dict[str, np.ndarray] = {}

    def add(self, position: int, base: Memory, tail_from: int, cost: int, compacted: bool,
            dropped: int, orphan_results: int, orphan_calls: int, empty: bool,
            recorded: bool, turns: int) -> None:
        """Append the next call; ``base`` is kept once however many calls share it."""
        if not self.bases or self.bases[-1] is not base:
            self.bases.append(base)
        for values, value in zip(self._columns.values(), (
                position, len(self.bases) - 1, tail_from, cost, dropped, orphan_results,
                orphan_calls, turns, compacted, empty, recorded)):   # _COLUMNS' order
            values.append(value)

    def extend(self, columns: dict[str, np.ndarray], bases: list) -> None:
        """Append many calls at once: per column of :data:`_COLUMNS` its values, ``base``
        numbering ``bases`` from 0. A base may be a ``range`` of the log's events, made a
        :class:`Memory` only when read (a replay of 47k compactions held 200 MB of them).
        ``columns`` is emptied: each column is let go once copied."""
        first = len(self.bases)
        self.bases.extend(bases)
        for name, values in self._columns.items():
            v = columns.pop(name)
            if name == "base":
                v = v + first
            values.frombytes(memoryview(   # its buffer read as it is, not copied to bytes
                np.ascontiguousarray(v, dtype=_DTYPES[values.typecode])).cast("B"))
            del v

    def column(self, name: str) -> np.ndarray:
        """One column of every call, copied (calls may still be added; flags as bool)."""
        values = self._columns[name]
        return np.array(values, dtype=bool if values.typecode == "b" else np.int64)

    def invalid(self) -> np.ndarray:
        """The calls whose request holds an orphan result or call."""
        return np.flatnonzero((self.column("orphan_results") > 0)
                              | (self.column("orphan_calls") > 0))

    def tail(self, j: int) -> np.ndarray:
        """The events call ``j``'s request holds after its base, in order."""
        tail = np.arange(self._columns["tail_from"][j], self._columns["position"][j])
        return tail[~self.log.archived[tail]] if self.unarchived and len(tail) else tail

    def stretches(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Each call's request as the stretch ``[lo, hi)`` of the log, when every base is a
        range of it (a replay of M0-M4 to its end); None otherwise."""
        if self.unarchived or not all(isinstance(b, range) for b in self.bases):
            return None
        starts = np.array([b.start for b in self.bases], dtype=np.int64)
        return starts[self.column("base")], self.column("position")

    def base(self, j: int) -> Memory:
        at = self._columns["base"][j]
        base = self.bases[at]
        if not isinstance(base, range):
            return base
        if self._made[0] != at:   # the calls after a compaction are read in a row
            self._made = (at, events(self.log, np.arange(base.start, base.stop)))
        return self._made[1]

    def figures(self, j: int) -> dict:
        """Call ``j``'s figures, :data:`CALL_KEYS` then the extra columns (Python values)."""
        c, i = self._columns, self._columns["position"][j]
        cost = c["cost"][j]
        out = {"index": j, "event": {"seq": int(self.log.seq[i]), "sub": int(self.log.sub[i])},
               "cost": cost, "compacted": bool(c["compacted"][j]), "dropped": c["dropped"][j],
               "orphan_results": c["orphan_results"][j], "orphan_calls": c["orphan_calls"][j],
               "empty": bool(c["empty"][j]),
               "over": (cost > self.budget) if self.budget is not None else None}
        out.update({name: bool(v[j]) for name, v in self.extra.items()})
        return out

    def __len__(self) -> int:
        return len(self._columns["position"])

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        if j < 0:
            j += len(self)
        if not 0 <= j < len(self):
            raise IndexError(j)
        c = self._columns
        return Call(j, c["position"][j], self.base(j), self.tail(j), self.figures(j),
                    bool(c["recorded"][j]), c["turns"][j])
