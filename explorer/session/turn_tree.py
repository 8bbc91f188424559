"""The turn tree of one session as plain data: which frame rows are turns' events, which
RESULT sits under which CALL, the order events are read in the tree, and each turn's size,
cost and mark counts. No Qt: :class:`widgets.turn_tree_model.TurnTreeModel` adapts it.

A RESULT sits under the CALL that the one-to-one display pairing of AUDITS.md gives it
(``display_call_pos``), wherever it is in the log; a thinking block under the event of the
assistant message it belongs to (``thinking_owner_pos``, ``queries/thinking_owners.sql``:
the message's ASSISTANT event, else its CALL, else the next of the turn), before that CALL's
RESULT; any other row sits under its turn.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from explorer.audits.row_marks import marked_rows
from explorer.compaction.positions import position_type


class RowMap(Mapping):
    """Frame row -> frame row, held as one array (-1: none), not a dict of millions."""

    def __init__(self, to: np.ndarray) -> None:
        self.to = to
        self._keys = np.flatnonzero(to >= 0)

    def __getitem__(self, row: int) -> int:
        got = int(self.to[row]) if 0 <= row < len(self.to) else -1
        if got < 0:
            raise KeyError(row)
        return got

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys.tolist())

    def __len__(self) -> int:
        return len(self._keys)


class TurnRows:
    """The rows shown directly under each turn, in frame order: ``rows[starts[t]:starts[t+1]]``
    (one array for the session; ``self[t]`` is a list of one turn's rows)."""

    def __init__(self, rows: np.ndarray, starts: np.ndarray) -> None:
        self.rows, self.starts = rows, starts

    def __getitem__(self, turn: int) -> list[int]:
        return self.rows[self.starts[turn]:self.starts[turn + 1]].tolist()

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __iter__(self) -> Iterator[list[int]]:
        return (self[t] for t in range(len(self)))

    def size(self, turn: int) -> int:
        return int(self.starts[turn + 1] - self.starts[turn])


class ThinkingRows:
    """The thinking blocks shown under each event, in frame order: ``self[row]`` (an empty
    list for most rows); ``rows`` / ``owners``: the thinking rows sorted by the row they sit
    under, and that row."""

    def __init__(self, rows: np.ndarray, owners: np.ndarray) -> None:
        by = np.lexsort((rows, owners))
        self.rows, self.owners = rows[by], owners[by]

    def __getitem__(self, owner: int) -> list[int]:
        lo, hi = np.searchsorted(self.owners, [owner, owner + 1])
        return self.rows[lo:hi].tolist()

    def __len__(self) -> int:
        return len(self.rows)

    def ranks(self) -> np.ndarray:
        """Each sorted thinking row's place among those of its event (0, 1, ...)."""
        n = len(self.owners)
        first = np.r_[True, self.owners[1:] != self.owners[:-1]] if n else np.zeros(0, bool)
        return np.arange(n) - np.maximum.accumulate(np.where(first, np.arange(n), 0))


@dataclass(frozen=True)
class TurnTree:
    """The structure of a :func:`explorer.tokens.session_events.session_events` frame.

    ``top_rows[t]``: the frame rows shown directly under turn ``t`` (numbered ``turn_no[t]``);
    ``result_of`` / ``call_of``: a CALL's nested RESULT row and back; ``thinking``: the
    thinking rows nested under an event (ASSISTANT or CALL); ``tree_order``: the
    rows in the order the tree shows them, ``tree_pos`` its inverse; ``turn_of[r]``: the turn
    a row belongs to; ``turn_size``, ``turn_cost``, ``turn_marks``: per turn. Everything per
    event is an array or a frame column (a session of millions of events: no object per
    event); ``kind``, ``tool``, ``call_id``, ``seq``, ``sub``, ``cost`` and ``note`` (what
    an OTHER event is, or who wrote a USER event, FORMAT.md; None when the frame has no such
    column) are read a row at a time.
    """

    kind: pl.Series
    tool: pl.Series
    call_id: pl.Series
    seq: pl.Series
    sub: pl.Series
    cost: pl.Series
    turn_no: np.ndarray
    top_rows: TurnRows
    result_of: RowMap
    call_of: RowMap
    tree_order: np.ndarray
    tree_pos: np.ndarray
    turn_of: np.ndarray
    turn_size: np.ndarray
    turn_cost: np.ndarray
    turn_marks: dict[int, dict[str, int]]   # the turns with marks only (a defaultdict)
    note: pl.Series | None = None
    thinking: ThinkingRows | None = None

    @classmethod
    def build(cls, frame: pl.DataFrame, marks: Sequence[frozenset[str]]) -> TurnTree:
        n = frame.height
        if not n:
            frame = pl.DataFrame(schema={c: pl.Int64 for c in ("turn_no", "pos", "display_call_pos",
                                                                "cost", "seq", "sub")}
                                 | {c: pl.String for c in ("kind", "tool", "call_id")})
        turn = frame["turn_no"].to_numpy()
        pos = frame["pos"].to_numpy()
        row = position_type(n)   # rows: half the memory of int64
        result_of = np.full(n, -1, dtype=row)
        call_of = np.full(n, -1, dtype=row)
        results = np.flatnonzero(frame["display_call_pos"].is_not_null().to_numpy())
        if len(results):
            calls = _rows_at(pos, frame["display_call_pos"].to_numpy()[results])
            result_of[calls], call_of[results] = results, calls
        nested = call_of >= 0
        owned = owners = np.zeros(0, dtype=row)
        if "thinking_owner_pos" in frame.columns:
            owned = np.flatnonzero(frame["thinking_owner_pos"].is_not_null().to_numpy())
            owners = _rows_at(pos, frame["thinking_owner_pos"].to_numpy()[owned])
            keep = ~nested[owners]   # under an event the turn shows (always, from the query)
            owned, owners = owned[keep].astype(row), owners[keep].astype(row)
            nested[owned] = True
        thinking = ThinkingRows(owned, owners)
        if n and np.all(turn[1:] >= turn[:-1]):   # session_events: turns in order, no sort
            step = np.r_[True, turn[1:] != turn[:-1]]
            turn_no, turn_idx = turn[step], np.cumsum(step) - 1
        else:
            turn_no, turn_idx = np.unique(turn, return_inverse=True)
            turn_idx = turn_idx.reshape(-1)
        top = np.flatnonzero(~nested)
        by_turn = top[np.argsort(turn_idx[top], kind="stable")].astype(row)
        starts = np.r_[0, np.cumsum(np.bincount(turn_idx[top], minlength=len(turn_no)))]
        has = result_of[by_turn] >= 0
        inner = np.bincount(thinking.owners, minlength=n)[by_turn] if len(thinking) else 0
        size = 1 + inner + has
        at = np.cumsum(size) - size                  # where each top row sits in tree order
        tree_order = np.empty(n, dtype=row)
        tree_order[at] = by_turn
        if len(thinking):                            # after their event, before its RESULT
            at_of = np.zeros(n, dtype=np.int64)
            at_of[by_turn] = at
            tree_order[at_of[thinking.owners] + 1 + thinking.ranks()] = thinking.rows
        tree_order[(at + inner)[has] + 1] = result_of[by_turn[has]]
        tree_pos = np.empty(n, dtype=row)
        tree_pos[tree_order] = np.arange(n, dtype=row)
        turn_of = turn_idx.astype(row)
        del turn_idx, top, at, has
        turn_of[results] = turn_of[call_of[results]]
        turn_of[thinking.rows] = turn_of[thinking.owners]
        costs = frame["cost"].to_numpy().astype(np.int64, copy=False)
        turn_marks = _turn_marks(turn_of, marks)
        return cls(
            kind=frame["kind"], tool=frame["tool"], call_id=frame["call_id"],
            seq=frame["seq"], sub=frame["sub"], cost=frame["cost"], turn_no=turn_no,
            top_rows=TurnRows(by_turn, starts), result_of=RowMap(result_of),
            call_of=RowMap(call_of), tree_order=tree_order, tree_pos=tree_pos, turn_of=turn_of,
            turn_size=np.bincount(turn_of, minlength=len(turn_no)),
            turn_cost=np.bincount(turn_of, weights=costs, minlength=len(turn_no)),
            turn_marks=turn_marks, note=frame["note"] if "note" in frame.columns else None,
            thinking=thinking)

    def marked(self, marks: Sequence[frozenset[str]]) -> TurnTree:
        """The same tree with the marks of its rows counted per turn (a tree built without)."""
        return replace(self, turn_marks=_turn_marks(self.turn_of, marks))

    def finding_rows(self, marks: Sequence[frozenset[str]]) -> list[int]:
        """The rows that carry a mark, in tree order."""
        return self.tree_order[marked_rows(marks)[self.tree_order]].tolist()


def _rows_at(pos: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The frame rows of the events at positions ``wanted``."""
    wanted = wanted.astype(np.int64)
    if np.array_equal(pos, np.arange(1, len(pos) + 1)):   # session_events: row = pos - 1
        return wanted - 1
    sorter = np.argsort(pos, kind="stable")
    return sorter[np.searchsorted(pos, wanted, sorter=sorter)]


def _turn_marks(turn_of: np.ndarray, marks: Sequence[frozenset[str]]) -> dict[int, dict[str, int]]:
    """Per turn with marks, how many of its rows carry each mark."""
    turn_marks: dict[int, dict[str, int]] = defaultdict(dict)
    for r in np.flatnonzero(marked_rows(marks)):
        counts = turn_marks[int(turn_of[r])]
        for m in marks[r]:
            counts[m] = counts.get(m, 0) + 1
    return turn_marks
