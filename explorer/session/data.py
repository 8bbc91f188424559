"""Everything the window shows about one session, loaded at once (off the GUI thread).

The frame, its per-event marks and its :class:`SessionLog` share their rows: row ``i`` of
the frame is event ``i`` of the log, in the order being viewed. The frame is narrow (no
``text``, no ``raw``): the texts of the rows shown are read by :attr:`SessionData.texts`, so
the memory of a session of millions of events follows what the window shows of it.

The window reads a session in two steps (:mod:`widgets.session_loader`): :func:`load_tree`
first, the few columns the turn tree lays out and its :class:`TurnTree` (a session of 3M
events: 2 s), so the tree is shown at once; then :func:`load_session`, everything else (the
log the preview and the cost curve read, the marks, the usage), which the tree then takes
without being rebuilt (same rows, same order).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import queries
from explorer.audits.marks import MARK_COLUMNS, event_marks, rules_found
from explorer.audits.row_marks import RowMarks
from explorer.audits.stamped_tables import BUILDING
from explorer.compaction import transforms
from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.event_texts import EventTexts, Texts
from explorer.session.reported_usage import SessionUsage, session_usage
from explorer.session.turn_tree import TurnTree
from explorer.store.db import Db, bounded_memory
from explorer.tokens.session_events import (
    TREE_READ,
    SessionChanged,
    marks_columns,
    session_events,
)

#: The memory DuckDB may use while it reads one session for the window (issue 13: one of
#: 3M events read in 1.45 GB instead of 2.37 GB, 12 s instead of 6 s under load ~3).
SESSION_MEMORY = 512 * 2**20
#: The same for the tree read first (:func:`load_tree`): its few columns sort within 256 MB
#: (the 3M-event session: 574 MB peak instead of 896 MB, no slower).
TREE_MEMORY = 256 * 2**20


@dataclass(frozen=True)
class SessionData:
    """One session read in one order with one cost and compaction setting."""

    session_id: str
    order: Order
    cost_settings: CostSettings
    settings: CompactionSettings
    frame: pl.DataFrame            # explorer.tokens.session_events.session_events
    marks: RowMarks                # explorer.audits.marks.event_marks, per frame row
    log: SessionLog                # costs after the transforms the settings switch on
    usage: SessionUsage = SessionUsage()  # what the writer reported (never the cost)
    texts: Texts | None = None     # the texts of the frame's rows, read when shown
    tree: TurnTree | None = None   # the frame's turn tree, when built off the GUI thread

    def event(self, row: int) -> dict:
        """One row of the frame as a dict, with its text and raw record."""
        out = self.frame.row(row, named=True)
        if self.texts is not None:
            out.update(self.texts.detail(row))
        return out

    def cost_text(self) -> str:
        """The session's cost and where it comes from: the writer's own ``tokens``, a real
        tokenizer's counts, or the ratio estimate (FORMAT.md)."""
        frame = self.frame
        by = dict(frame.group_by("cost_source").agg(pl.col("cost").sum()).iter_rows()) \
            if frame.height else {}
        names = {"tokens": "the writer's own",
                 "tokenizer": f"counted by {self.cost_settings.describe()}",
                 "ratios": "estimated from the characters"}
        parts = [f"{int(by[k]):,} {text}" for k, text in names.items() if by.get(k)]
        total = sum(int(v or 0) for v in by.values())
        return f"cost {total:,} tokens" + (f" ({'; '.join(parts)})" if parts else "")

    @property
    def turns(self) -> int:
        """The session's turns (FORMAT.md: opened by USER events; the preamble, turn 0, is
        not one of them): the figure the session list and the plot show too."""
        if not self.frame.height:
            return 0
        return self.frame["turn_no"].filter(self.frame["turn_no"] > 0).n_unique()

    @property
    def has_preamble(self) -> bool:
        """Whether events come before the first turn (the preamble)."""
        return bool(self.frame.height) and bool((self.frame["turn_no"] == 0).any())

    def turns_text(self) -> str:
        """``13 turns and a preamble``, ``1 turn``, ``no turn, a preamble``."""
        return turns_text(self.turns, self.has_preamble)


def turns_text(turns: int, preamble: bool) -> str:
    """The turn count in words, the preamble (events before the first USER) said apart."""
    text = "no turn" if not turns else f"{turns:,} turn" + ("s" if turns != 1 else "")
    if preamble:
        text += ", and a preamble" if not turns else " and a preamble"
    return text


@dataclass(frozen=True)
class SessionTree:
    """The first step of a session's load: the turn tree without marks (no rule run yet).

    ``frame`` holds :data:`TREE_COLUMNS` only, in the order ``order``; row ``i`` is row ``i``
    of the :class:`SessionData` frame that follows."""

    session_id: str
    order: Order
    cost_settings: CostSettings
    frame: pl.DataFrame
    tree: TurnTree
    texts: Texts | None = None

    @property
    def marks(self) -> RowMarks:
        """No marks yet (every row the one empty set)."""
        return RowMarks.none(self.frame.height)

    @property
    def turns(self) -> int:
        return len(self.tree.turn_no)


#: The columns :func:`load_tree` reads (``queries/session_events_tree.sql``) and adds.
TREE_COLUMNS = (*TREE_READ, "display_call_pos", "thinking_owner_pos")


def load_tree(db: Db, session_id: str, order: Order = Order.SEQ,
              cost_settings: CostSettings | None = None,
              texts_from: Db | None = None) -> SessionTree:
    """The turn tree of a session, from the columns it lays out (one indexed query, DuckDB's
    memory bounded to :data:`TREE_MEMORY`, or :data:`SESSION_MEMORY` while an audit table is
    being built); the texts are read later from ``texts_from``."""
    cost_settings = cost_settings or CostSettings()
    # DuckDB's limit is the database's: lowered to TREE_MEMORY only while no derived table
    # is being built (which then waits the 2 s), else to SESSION_MEMORY as the full read's.
    free = BUILDING.acquire(blocking=False)
    try:
        with bounded_memory(db, TREE_MEMORY if free else SESSION_MEMORY):
            frame = session_events(db, session_id, Order(order), cost_settings, texts=False,
                                   tree_only=True)
    finally:
        if free:
            BUILDING.release()
    tree = TurnTree.build(frame, [])   # no marks yet
    return SessionTree(session_id, Order(order), cost_settings, frame, tree,
                       EventTexts(texts_from or db, frame["eid"].to_numpy()))


def load_session(db: Db, session_id: str, order: Order = Order.SEQ,
                 cost_settings: CostSettings = CostSettings(),
                 settings: CompactionSettings = CompactionSettings(),
                 texts_from: Db | None = None, first: SessionTree | None = None) -> SessionData:
    """Read one session narrow (one indexed query, plus one for the transforms when they
    are on, one for the reported usage), with DuckDB's memory bounded (a session of
    millions of events: it spills its sorts). The texts are read later from ``texts_from``
    (default ``db``; the window passes its store, whose connection outlives the worker's).
    ``first``: the session's tree read before (:func:`load_tree`) with the same order and
    costs: its columns are not read again, nor its display pairing computed again."""
    same = first is not None and (first.session_id, first.order, first.cost_settings) == (
        session_id, Order(order), cost_settings)
    known = first.frame if same else None
    with bounded_memory(db, SESSION_MEMORY):
        try:
            frame = session_events(db, session_id, Order(order), cost_settings, texts=False,
                                   known=known)
        except SessionChanged:   # the session changed since its tree was read: all of it again
            frame = session_events(db, session_id, Order(order), cost_settings, texts=False)
    log = transforms.for_log(db, SessionLog.from_frame(session_id, frame, share_ids=True),
                             settings, cost_settings)
    texts = EventTexts(texts_from or db, frame["eid"].to_numpy())
    rules = rules_found(db, session_id, Order(order), cost_settings)
    marked = frame
    if rules and not set(MARK_COLUMNS) <= set(frame.columns):   # read compact: theirs now
        with bounded_memory(db, SESSION_MEMORY):
            marked = marks_columns(db, frame, Order(order), cost_settings, session_id)
    marks = event_marks(marked, rules, db, session_id)
    del marked
    return SessionData(session_id, Order(order), cost_settings, settings, frame, marks, log,
                       _usage(db, session_id), texts)


def _usage(db: Db, session_id: str, batch: int = 10_000) -> SessionUsage:
    """The usage the session's raw records report, read a batch at a time (fetched fully
    before the next statement on ``db``)."""
    cur = db.con.execute(queries.render("session_raws"), {"session_id": session_id})
    return session_usage(tuple(row) for rows in iter(lambda: cur.fetchmany(batch), [])
                         for row in rows)
