"""Per-event marks of one session for display: which AUDITS.md rule each event falls under.

Computed from a :func:`explorer.tokens.session_events.session_events` frame (one session, one order), so
the tree can mark events without running the corpus audit. The same rules as the audit:
the tests check each mark against the findings of :func:`explorer.audits.counts.findings`.
"""

from __future__ import annotations

import polars as pl

#: Mark names (the AUDITS.md rules they stand for), in display order.
MARKS = ("orphan_results", "dangling_calls", "mispair", "duplicate_call_ids",
         "tie_inversions", "clock_regressions", "turn_collisions")


def event_marks(frame: pl.DataFrame) -> list[frozenset[str]]:
    """For each row of ``frame`` (in its order), the rules that point at that event.

    Pair rules (tie_inversions, clock_regressions) mark the later event of the pair, the one
    out of order; grouped rules mark every event of the group.
    """
    if frame.is_empty():
        return []
    kind = pl.col("kind").cast(pl.String)
    has_id = pl.col("call_id").is_not_null() & kind.is_in(["CALL", "RESULT"])
    calls = (kind == "CALL").cast(pl.Int64).sum().over("call_id")
    results = (kind == "RESULT").cast(pl.Int64).sum().over("call_id")
    by_append = frame.sort("seq", "sub", "eid").with_row_index("append")
    timed = by_append.filter(pl.col("ts").is_not_null()).select(
        "pos", regress=pl.col("ts") < pl.col("ts").shift(1))
    frame = frame.join(by_append.select("pos", "append"), on="pos", how="left").sort("pos")
    append = pl.col("append")
    users_in_turn = pl.col("user_id").drop_nulls().n_unique().over("turn")
    marked = frame.with_columns(
        orphan_results=has_id & (kind == "RESULT") & (calls == 0),
        dangling_calls=has_id & (kind == "CALL") & (results == 0),
        mispair=has_id & (kind == "RESULT") & (calls > 0) & pl.col("call_pos").is_null(),
        duplicate_call_ids=has_id & (calls >= 2),
        tie_inversions=(pl.col("ts") == pl.col("ts").shift(1)) & (append < append.shift(1)),
        turn_collisions=pl.col("turn").is_not_null() & (users_in_turn > 1),
    ).join(timed, on="pos", how="left").with_columns(
        clock_regressions=pl.col("regress").fill_null(False))
    columns = marked.select([pl.col(m).fill_null(False) for m in MARKS]).rows()
    return [frozenset(m for m, on in zip(MARKS, row) if on) for row in columns]
