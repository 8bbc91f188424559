"""One session read in an order: turns, costs, and tool calls paired with their results."""

from __future__ import annotations

import numpy as np
import polars as pl

import queries

from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts


def session_events(db: Db, session_id: str, order: Order = Order.SEQ,
                   settings: CostSettings = CostSettings(), *, texts: bool = True) -> pl.DataFrame:
    """The session's events in ``order`` with pos, turn_no, cost, call_pos, result_pos.

    ``texts=False`` leaves out the bulky ``text`` and ``raw`` and the unused ``call_pos`` and
    ``result_pos`` (a session of millions of events is read as its narrow columns;
    :mod:`explorer.session.event_texts` reads texts by eid).

    ``turn_no`` is the derived turn (FORMAT.md: a turn opens at every USER event; 0 is
    the preamble); ``call_pos``/``result_pos`` are the pairing of AUDITS.md (positions
    are 1-based); ``display_call_pos`` is the one-to-one pairing the tree shows.
    """
    token_counts.ensure(db, settings, session_id)
    fragments = {"order": ORDER_KEYS[Order(order)], "text": "text, raw," if texts else "",
                 **settings.fragments()}
    params = {"session_id": session_id, **settings.params()}
    if texts:
        frame = db.frame("session_events", fragments, **params)
    else:
        events = queries.render("session_events", **fragments)
        frame = db.frame("session_events_narrow", {"events": events}, **params)
    return frame.with_columns(display_pairs(frame))


def display_pairs(frame: pl.DataFrame) -> pl.Series:
    """For each event, the CALL a RESULT sits under in the tree, else None.

    AUDITS.md: each RESULT sits under the nearest earlier CALL of its id that no RESULT
    has taken yet; a RESULT with no such CALL shows where it sits in the log.

    Computed without a loop over the events (numpy over the events grouped by call id, in
    pos order): a CALL opens one level deeper and a RESULT closes one (none open: it takes
    nothing and the depth stays 0). A RESULT that closes level L takes the last CALL before
    it that opened level L.
    """
    empty = pl.Series("display_call_pos", [None] * frame.height, dtype=pl.Int64)
    paired = (frame.select("pos", "call_id", is_call=pl.col("kind").cast(pl.String) == "CALL",
                           is_result=pl.col("kind").cast(pl.String) == "RESULT")
              .with_row_index("row")
              .filter(pl.col("call_id").is_not_null() & (pl.col("is_call") | pl.col("is_result")))
              .sort("call_id", "pos"))
    if paired.is_empty():
        return empty
    group = (pl.col("call_id") != pl.col("call_id").shift(1)).fill_null(True).cum_sum()
    g = paired.select(group).to_series().to_numpy().astype(np.int64)
    is_call = paired["is_call"].to_numpy()
    n = len(g)
    first = np.r_[True, g[1:] != g[:-1]]              # the first event of its call id
    total = np.cumsum(np.where(is_call, 1, -1))
    base = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    total = total - np.r_[0, total][base]             # the running sum within the call id
    big = 2 * n + 2                                   # a running minimum within the call id
    low = np.minimum.accumulate(total - g * big) + g * big
    depth = total - np.minimum(low, 0)
    before = np.where(first, 0, np.r_[0, depth[:-1]])
    level = np.where(is_call, depth, before)
    taking = ~is_call & (before > 0)
    order = np.lexsort((paired["pos"].to_numpy(), level, g))
    seen = np.where(is_call[order], np.arange(n), -1)
    last = np.maximum.accumulate(seen)                # the last CALL at or before, in order
    block = (g * big + level)[order]
    ok = taking[order] & (last >= 0)
    ok[ok] = block[ok] == block[last[ok]]
    rows = paired["row"].to_numpy()[order][ok]
    calls = paired["pos"].to_numpy()[order][last[ok]]
    return empty.scatter(rows, calls)
