"""One session read in an order: turns, costs, and tool calls paired with their results."""

from __future__ import annotations

from collections import defaultdict

import polars as pl

from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts


def session_events(db: Db, session_id: str, order: Order = Order.SEQ,
                   settings: CostSettings = CostSettings()) -> pl.DataFrame:
    """The session's events in ``order`` with pos, turn_no, cost, call_pos, result_pos.

    ``turn_no`` is the derived turn (FORMAT.md: a turn opens at every USER event; 0 is
    the preamble); ``call_pos``/``result_pos`` are the pairing of AUDITS.md (positions
    are 1-based); ``display_call_pos`` is the one-to-one pairing the tree shows.
    """
    token_counts.ensure(db, settings, session_id)
    frame = db.frame("session_events", {"order": ORDER_KEYS[Order(order)], **settings.fragments()},
                     session_id=session_id, **settings.params())
    return frame.with_columns(
        pl.Series("display_call_pos", display_pairs(frame), dtype=pl.Int64))


def display_pairs(frame: pl.DataFrame) -> list[int | None]:
    """For each event, the CALL a RESULT sits under in the tree, else None.

    AUDITS.md: each RESULT sits under the nearest earlier CALL of its id that no RESULT
    has taken yet; a RESULT with no such CALL shows where it sits in the log.
    """
    open_calls: dict[str, list[int]] = defaultdict(list)
    out: list[int | None] = [None] * frame.height
    rows = frame.select("pos", "kind", "call_id").iter_rows()
    for i, (pos, kind, call_id) in enumerate(rows):
        if call_id is None:
            continue
        if kind == "CALL":
            open_calls[call_id].append(pos)
        elif kind == "RESULT" and open_calls[call_id]:
            out[i] = open_calls[call_id].pop()
    return out

