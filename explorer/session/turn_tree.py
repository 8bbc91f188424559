"""The turn tree of one session as plain data: which frame rows are turns' events, which
RESULT sits under which CALL, the order events are read in the tree, and each turn's size,
cost and mark counts. No Qt: :class:`widgets.turn_tree_model.TurnTreeModel` adapts it.

A RESULT sits under the CALL that the one-to-one display pairing of AUDITS.md gives it
(``display_call_pos``), wherever it is in the log; any other row sits under its turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass(frozen=True)
class TurnTree:
    """The structure of a :func:`explorer.tokens.session_events.session_events` frame.

    ``top_rows[t]``: the frame rows shown directly under turn ``t`` (numbered ``turn_no[t]``);
    ``result_of`` / ``call_of``: a CALL's nested RESULT row and back; ``tree_order``: the
    rows in the order the tree shows them, ``tree_pos`` its inverse; ``turn_of[r]``: the turn
    a row belongs to; ``turn_size``, ``turn_cost``, ``turn_marks``: per turn.
    """

    kind: list[str]
    tool: list
    call_id: list
    seq: list
    sub: list
    cost: list
    turn_no: list[int]
    top_rows: list[list[int]]
    result_of: dict[int, int]
    call_of: dict[int, int]
    tree_order: list[int]
    tree_pos: np.ndarray
    turn_of: np.ndarray
    turn_size: np.ndarray
    turn_cost: np.ndarray
    turn_marks: list[dict[str, int]]

    @classmethod
    def build(cls, frame: pl.DataFrame, marks: list[frozenset[str]]) -> TurnTree:
        n = frame.height
        cols = (frame.select("kind", "tool", "call_id", "seq", "sub", "cost")
                .to_dict(as_series=False) if n else {})
        rows = frame.select("turn_no", "pos", "display_call_pos").rows() if n else []
        row_of_pos = {pos: i for i, (_, pos, _) in enumerate(rows)}
        result_of: dict[int, int] = {}
        call_of: dict[int, int] = {}
        by_turn: dict[int, list[int]] = {t: [] for t in sorted({t for t, _, _ in rows})}
        for i, (turn, _, call_pos) in enumerate(rows):
            if call_pos is None:
                by_turn[turn].append(i)
            else:
                result_of[row_of_pos[call_pos]] = i
                call_of[i] = row_of_pos[call_pos]
        top_rows = list(by_turn.values())
        tree_order = [r for top in top_rows for t in top
                      for r in ((t, result_of[t]) if t in result_of else (t,))]
        tree_pos = np.empty(n, dtype=np.int64)
        tree_pos[tree_order] = np.arange(n)
        turn_of = np.empty(n, dtype=np.int64)
        for t, top in enumerate(top_rows):
            turn_of[top] = t
        for result, call in call_of.items():
            turn_of[result] = turn_of[call]
        costs = np.asarray(cols.get("cost", []), dtype=np.int64)
        turn_marks: list[dict[str, int]] = [{} for _ in top_rows]
        for r, row_marks in enumerate(marks):
            counts = turn_marks[turn_of[r]]
            for m in row_marks:
                counts[m] = counts.get(m, 0) + 1
        return cls(
            kind=[str(k) for k in cols.get("kind", [])], tool=cols.get("tool", []),
            call_id=cols.get("call_id", []), seq=cols.get("seq", []), sub=cols.get("sub", []),
            cost=cols.get("cost", []), turn_no=list(by_turn), top_rows=top_rows,
            result_of=result_of, call_of=call_of, tree_order=tree_order, tree_pos=tree_pos,
            turn_of=turn_of, turn_size=np.bincount(turn_of, minlength=len(top_rows)),
            turn_cost=np.bincount(turn_of, weights=costs, minlength=len(top_rows)),
            turn_marks=turn_marks)

    def finding_rows(self, marks: list[frozenset[str]]) -> list[int]:
        """The rows that carry a mark, in tree order."""
        return [r for r in self.tree_order if marks[r]]
