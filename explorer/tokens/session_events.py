"""One session read in an order: turns, costs, and tool calls paired with their results."""

from __future__ import annotations

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
    return frame.with_columns(display_pairs(frame))


def display_pairs(frame: pl.DataFrame) -> pl.Series:
    """For each event, the CALL a RESULT sits under in the tree, else None.

    AUDITS.md: each RESULT sits under the nearest earlier CALL of its id that no RESULT
    has taken yet; a RESULT with no such CALL shows where it sits in the log.

    Computed without a loop over the events: per call id, in pos order, a CALL opens one
    level deeper and a RESULT closes one (none open: it takes nothing and the depth stays
    0). A RESULT that closes level L takes the last CALL before it that opened level L.
    """
    empty = pl.Series("display_call_pos", [None] * frame.height, dtype=pl.Int64)
    if frame.is_empty():
        return empty
    paired = (frame.select("pos", "call_id", pl.col("kind").cast(pl.String))
              .with_row_index("row")
              .filter(pl.col("call_id").is_not_null() & pl.col("kind").is_in(["CALL", "RESULT"])))
    if paired.is_empty():
        return empty
    step = pl.when(pl.col("kind") == "CALL").then(1).otherwise(-1)
    total = step.cum_sum().over("call_id")
    depth = total - pl.min_horizontal(total.cum_min().over("call_id"), pl.lit(0))
    paired = paired.with_columns(depth=depth).with_columns(
        before=pl.col("depth").shift(1, fill_value=0).over("call_id"))
    calls = (paired.filter(pl.col("kind") == "CALL")
             .select("pos", "call_id", level=pl.col("depth"), call_pos=pl.col("pos")))
    results = (paired.filter((pl.col("kind") == "RESULT") & (pl.col("before") > 0))
               .select("row", "pos", "call_id", level=pl.col("before")))
    taken = results.sort("pos").join_asof(calls.sort("pos"), on="pos", by=["call_id", "level"],
                                          strategy="backward", allow_exact_matches=False)
    return empty.scatter(taken["row"], taken["call_pos"].cast(pl.Int64))
