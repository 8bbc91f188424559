"""One session read in an order: turns, costs, and tool calls paired with their results."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import polars as pl

import queries
from explorer.model import KINDS, ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts


class SessionChanged(ValueError):
    """The rows of a session are not those of the tree frame read before (an import ran)."""


def session_events(db: Db, session_id: str, order: Order = Order.SEQ,
                   settings: CostSettings = CostSettings(), *, texts: bool = True,
                   tree_only: bool = False, known: pl.DataFrame | None = None) -> pl.DataFrame:
    """The session's events in ``order`` with pos, turn_no, cost, call_pos, result_pos.

    ``texts=False`` leaves out the bulky ``text`` and ``raw`` and the unused ``call_pos`` and
    ``result_pos`` (a session of millions of events is read as its narrow columns;
    :mod:`explorer.session.event_texts` reads texts by eid). ``tree_only`` reads fewer
    still: the columns the turn tree lays out (``queries/session_events_tree.sql``).
    ``known`` is such a tree frame of the same session, order and settings, read before: the
    frame is it with what the preview, the cost curve and the replay compute from, read
    compact (``queries/session_events_rest.sql``: ``user_key``/``message_key`` numbers for the
    ids, ``branched`` for the branch; the detail reads the other columns of its one event);
    :class:`SessionChanged` when the rows are not the same.

    ``turn_no`` is the derived turn (FORMAT.md: a turn opens at every USER event; 0 is
    the preamble); ``call_pos``/``result_pos`` are the pairing of AUDITS.md (positions
    are 1-based); ``display_call_pos`` is the one-to-one pairing the tree shows;
    ``thinking_owner_pos`` the event a thinking block sits under in the tree
    (``queries/thinking_owners.sql``; NULL on every other event).
    """
    token_counts.ensure(db, settings, session_id)
    wide = texts and not tree_only
    fragments = {"order": ORDER_KEYS[Order(order)], "text": "text, raw," if wide else "",
                 **settings.fragments()}
    params = {"session_id": session_id, **settings.params()}
    events = queries.render("session_events", **(fragments | {"text": ""}))
    if wide:   # its strings as read, but the fixed few (as every read: one type of kind)
        frame = fixed_strings(db.frame("session_events", fragments, **params))
    elif known is not None and Order(order) is Order.SEQ:
        return rest_in_seq_order(db, known, settings, params)
    elif known is not None:
        return _with_rest(db, known, events, params)
    elif tree_only and Order(order) is Order.SEQ:
        frame = tree_in_seq_order(db, settings, params)
    else:
        name = "session_events_tree" if tree_only else "session_events_narrow"
        frame = few_strings(db.frame(name, {"events": events}, **params))
    return frame.with_columns(display_pairs(frame), thinking_owners(db, frame, events, params))


#: The type of a frame's positions and turn numbers (pos, turn_no, display_call_pos,
#: thinking_owner_pos; session_events.sql's INTEGER): 32 bits, as the log's positions
#: (explorer.compaction.log.SessionLog), 12 MB less per column in a session of 3M events.
POSITION = pl.Int32


#: The string columns of a narrow frame that hold few distinct values (the tools, the notes):
#: read as polars Categoricals, a 32-bit code per event. As strings, a polars column holds a
#: 16-byte view per event, null or not: in a session of 3M events tool and note held 46 MB
#: each (polars's ``estimated_size`` says 16 and 0). A Categorical's strings stay in polars's
#: global cache for the process: never for a column of many values (the call ids).
FEW_STRINGS = ("tool", "note")
#: Where the cost comes from (queries/session_events*.sql's cost_source, in their order).
COST_SOURCES = ("tokens", "tokenizer", "ratios")
#: The columns whose values are a fixed few (DuckDB ENUMs, read by polars as Categoricals of
#: 32-bit codes): as polars Enums of those values, a byte per event (3M events: 9 MB less each).
FIXED_STRINGS = {"kind": pl.Enum(KINDS), "cost_source": pl.Enum(COST_SOURCES)}


def few_strings(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its :data:`FEW_STRINGS` columns as Categoricals and its
    :data:`FIXED_STRINGS` as their Enums."""
    return fixed_strings(frame.with_columns(
        pl.col(c).cast(pl.Categorical) for c in FEW_STRINGS
        if c in frame.columns and frame[c].dtype == pl.String))


def fixed_strings(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its :data:`FIXED_STRINGS` columns as their Enums."""
    return frame.with_columns(pl.col(c).cast(dtype) for c, dtype in FIXED_STRINGS.items()
                              if c in frame.columns and frame[c].dtype != dtype)


#: The 64-bit integer columns of the rest of a frame read narrow (the writer's own tokens and
#: turn numbers, BIGINT in the store): held in 32 bits when every value of the session fits,
#: as they do in real logs (:func:`narrow_ints`; 12 MB less each in a session of 3M events).
WIDE_INTS = ("tokens", "turn")


def narrow_ints(frame: pl.DataFrame, names: tuple[str, ...] = WIDE_INTS) -> pl.DataFrame:
    """``frame`` with its Int64 columns ``names`` as Int32 where every value fits with room
    for one more either side (a key made of it adds 1: explorer.compaction.strategies.
    one_session); no value changes, and a column with one value out of that stays as read."""
    low, high = -(2**31), 2**31 - 1
    return frame.with_columns(
        frame[c].cast(pl.Int32) for c in names
        if c in frame.columns and frame[c].dtype == pl.Int64
        and (frame[c].null_count() == frame.height
             or (low < frame[c].min() and frame[c].max() < high)))


#: The columns of queries/session_events_tree.sql, in its order (the turn tree's frame adds
#: display_call_pos and thinking_owner_pos: explorer.session.data.TREE_COLUMNS).
TREE_READ = ("pos", "turn_no", "eid", "seq", "sub", "kind", "call_id", "tool", "cost", "note")


def tree_in_seq_order(db: Db, settings: CostSettings, params: dict) -> pl.DataFrame:
    """``queries/session_events_tree.sql`` in append order, without its window: the rows
    read as stored (``queries/session_events_tree_scan.sql``), sorted by seq, sub, eid only
    when they are not (ORDER_KEYS[Order.SEQ]; eid is unique, so the order is the one the
    window gives), then numbered: ``pos`` from 1 and ``turn_no`` the turn-opening USER
    events so far (a USER with a note opens none, FORMAT.md; as session_events.sql counts
    them)."""
    frame = db.frame_in_blocks("session_events_tree_scan", settings.fragments(),
                               each=few_strings, **params)
    if frame.height and not _in_seq_order(frame):
        order = np.lexsort((frame["eid"].to_numpy(), frame["sub"].to_numpy(),
                            frame["seq"].to_numpy()))
        frame = frame[order]
    opens = (frame["kind"] == "USER") & frame["note"].is_null()
    return frame.with_columns(
        pos=pl.int_range(1, frame.height + 1, dtype=POSITION, eager=True),
        turn_no=opens.cast(POSITION).cum_sum()).select(TREE_READ)


def _in_seq_order(frame: pl.DataFrame) -> bool:
    """Whether the rows are sorted by seq, sub, eid (seq and sub are never null)."""
    seq, sub, eid = (frame[c].to_numpy().astype(np.int64, copy=False)
                     for c in ("seq", "sub", "eid"))
    step = np.diff(seq)
    if (step < 0).any():
        return False
    tie = step == 0
    sub_step = np.diff(sub)[tie]
    if (sub_step < 0).any():
        return False
    return bool((np.diff(eid)[tie][sub_step == 0] > 0).all())


def thinking_owners(db: Db, frame: pl.DataFrame, events: str, params: dict) -> pl.Series:
    """For each thinking block (OTHER, note ``thinking``) of a frame read by
    :func:`session_events`, the position of the event of its assistant message that the
    tree shows it under (``queries/thinking_owners.sql``, over ``events``: that frame's
    statement without texts), else None. Read only when the frame has thinking blocks."""
    empty = pl.repeat(None, frame.height, dtype=POSITION, eager=True).alias("thinking_owner_pos")
    if "note" not in frame.columns or not (
            (frame["kind"] == "OTHER") & (frame["note"] == "thinking")).any():
        return empty
    owners = db.frame("thinking_owners", {"events": events}, **params).drop_nulls("owner_pos")
    return empty.scatter(owners["pos"].to_numpy() - 1, owners["owner_pos"])


def _with_rest(db: Db, known: pl.DataFrame, events: str, params: dict) -> pl.DataFrame:
    """The tree frame ``known`` with the rest of its columns (read now, compact:
    ``queries/session_events_rest.sql``), its own columns kept as they are (not copied)."""
    rest = few_strings(narrow_ints(db.frame("session_events_rest", {"events": events},
                                            **params)))
    if not rest["pos"].equals(known["pos"]):
        raise SessionChanged("the session changed while it was read")
    return known.hstack(rest.drop("pos").get_columns())


#: The columns :func:`_with_rest` adds to the tree frame (queries/session_events_rest.sql).
REST_READ = ("text_chars", "chars", "cjk", "tokens", "estimated", "cost_source", "turn",
             "is_error", "archived", "synthetic", "branched", "user_key", "message_key")


def rest_in_seq_order(db: Db, known: pl.DataFrame, settings: CostSettings,
                      params: dict) -> pl.DataFrame:
    """:func:`_with_rest` for a tree frame ``known`` in append order, without the window:
    the rows read as stored (``queries/session_events_rest_scan.sql``), the user and message
    ids numbered (equal ids, equal numbers; as session_events_rest.sql's dense ranks), then
    put in the tree's order by eid when they are not in it already (a scan through the join
    rarely is), a column at a time (:func:`_taken`)."""
    rest = few_strings(narrow_ints(db.frame(   # no cost here: no ratio
        "session_events_rest_scan", settings.fragments(), session_id=params["session_id"])))
    if rest.height != known.height:
        raise SessionChanged("the session changed while it was read")
    rows = None
    if not rest["eid"].equals(known["eid"]):
        rows = rows_by_eid(known["eid"].to_numpy(), rest["eid"].to_numpy())
        if not rest["eid"].gather(rows).equals(known["eid"]):   # not the same events any more
            raise SessionChanged("the session changed while it was read")
    # numbered where they are, and the strings let go before anything is put in order
    for name in ("user", "message"):
        rest = rest.with_columns(rest.drop_in_place(f"{name}_id").rank("dense")
                                 .cast(pl.Int32).alias(f"{name}_key"))
    rest = rest.select(REST_READ)   # the frame as read let go (its eid, its strings)
    return known.hstack(list(_taken(rest, rows)))


def _taken(frame: pl.DataFrame, rows: np.ndarray | None) -> Iterator[pl.Series]:
    """``frame``'s columns one at a time, each in the order ``rows`` (None: as they are), each
    dropped from ``frame`` once taken: the frame is never held twice (a session of 3M events
    read its rest 230 MB above what it keeps when put in order whole)."""
    for name in frame.columns:
        column = frame.drop_in_place(name)
        yield column if rows is None else column.gather(rows)


def rows_by_eid(want: np.ndarray, have: np.ndarray) -> np.ndarray:
    """For each of the eids ``want``, the row of ``have`` holding it, when both hold the
    same distinct eids (else rows whose eids differ from ``want``: the caller compares).
    Two sorts of runs already sorted (a scan's row groups): a session of 3M events took
    0.36 s to be joined on eid, 0.1 s so."""
    rows = np.empty(len(want), dtype=np.int64)
    rows[np.argsort(want, kind="stable")] = np.argsort(have, kind="stable")
    return rows


def marks_columns(db: Db, known: pl.DataFrame, order: Order, settings: CostSettings,
                  session_id: str) -> pl.DataFrame:
    """The columns the audit marks read (:data:`explorer.audits.marks` ``_COLUMNS``) of a
    session frame read narrow: its own and those of ``queries/session_events_marks.sql``."""
    fragments = {"order": ORDER_KEYS[Order(order)], "text": "", **settings.fragments()}
    events = queries.render("session_events", **fragments)
    more = db.frame("session_events_marks", {"events": events}, session_id=session_id,
                    **settings.params())
    if not more["pos"].equals(known["pos"]):
        raise SessionChanged("the session changed while it was read")
    return known.select("pos", "seq", "sub", "eid", "kind", "call_id").hstack(
        more.drop("pos").get_columns())


def display_pairs(frame: pl.DataFrame) -> pl.Series:
    """For each event, the CALL a RESULT sits under in the tree, else None.

    AUDITS.md: each RESULT sits under the nearest earlier CALL of its id that no RESULT
    has taken yet; a RESULT with no such CALL shows where it sits in the log.

    Computed without a loop over the events (numpy over the events grouped by call id, in
    pos order): a CALL opens one level deeper and a RESULT closes one (none open: it takes
    nothing and the depth stays 0). A RESULT that closes level L takes the last CALL before
    it that opened level L.
    """
    n_rows = frame.height
    kind = frame["kind"]   # compared as it is (a categorical: no string per event made)
    is_call_all = (kind == "CALL").to_numpy()
    keep = np.flatnonzero((frame["call_id"].is_not_null().to_numpy())
                          & (is_call_all | (kind == "RESULT").to_numpy()))
    if not len(keep):
        return pl.repeat(None, n_rows, dtype=POSITION, eager=True).alias("display_call_pos")
    # Grouped by call id through integer codes (any numbering groups alike: only the order
    # inside a group counts), temporaries dropped as soon as done: a session of 3M events
    # sorted its strings in a frame of its own and held every temporary (+790 MB). A dense
    # rank, not a Categorical: polars keeps a Categorical's strings for the whole process
    # (3M events: 180 MB kept after each session opened, and 10 times the CPU).
    codes = frame["call_id"].rank("dense").fill_null(0).to_numpy()[keep]
    pos_all = frame["pos"].to_numpy()
    by = np.lexsort((pos_all[keep], codes))
    rows_sorted = keep[by]
    ids = codes[by]
    del codes, by
    n = len(rows_sorted)
    dtype = np.int64
    first = np.r_[True, ids[1:] != ids[:-1]]          # the first event of its call id
    g = (np.cumsum(first) - 1).astype(dtype)
    del ids
    is_call = is_call_all[rows_sorted]
    total = np.cumsum(np.where(is_call, 1, -1).astype(dtype))
    base = np.maximum.accumulate(np.where(first, np.arange(n, dtype=dtype), 0))
    total -= np.r_[0, total][base].astype(dtype)     # the running sum within the call id
    del base
    big = dtype(2 * n + 2)                             # a running minimum within the call id
    low = np.minimum.accumulate(total - g * big) + g * big
    depth = total - np.minimum(low, 0)
    del low, total
    before = np.where(first, 0, np.r_[0, depth[:-1]]).astype(dtype)
    level = np.where(is_call, depth, before)
    del depth
    taking = ~is_call & (before > 0)
    del before
    pos = pos_all[rows_sorted]
    order = np.lexsort((pos, level, g))
    seen = np.where(is_call[order], np.arange(n), -1)
    last = np.maximum.accumulate(seen)                # the last CALL at or before, in order
    del seen
    block = (g.astype(np.int64) * int(big) + level)[order]
    ok = taking[order] & (last >= 0)
    ok[ok] = block[ok] == block[last[ok]]
    rows = rows_sorted[order][ok]
    calls = pos[order][last[ok]]
    empty = pl.repeat(None, n_rows, dtype=POSITION, eager=True).alias("display_call_pos")
    return empty.scatter(rows, calls)
