"""Everything the window shows about one session, loaded at once (off the GUI thread).

The frame, its per-event marks and its :class:`SessionLog` share their rows: row ``i`` of
the frame is event ``i`` of the log, in the order being viewed. The frame is narrow (no
``text``, no ``raw``): the texts of the rows shown are read by :attr:`SessionData.texts`, so
the memory of a session of millions of events follows what the window shows of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import queries
from explorer.audits.marks import event_marks, rules_found
from explorer.compaction import transforms
from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.event_texts import EventTexts, Texts
from explorer.session.reported_usage import SessionUsage, session_usage
from explorer.store.db import Db, bounded_memory
from explorer.tokens.session_events import session_events

#: The memory DuckDB may use while it reads one session for the window (issue 13: one of
#: 3M events read in 1.45 GB instead of 2.37 GB, 12 s instead of 6 s under load ~3).
SESSION_MEMORY = 512 * 2**20


@dataclass(frozen=True)
class SessionData:
    """One session read in one order with one cost and compaction setting."""

    session_id: str
    order: Order
    cost_settings: CostSettings
    settings: CompactionSettings
    frame: pl.DataFrame            # explorer.tokens.session_events.session_events
    marks: list[frozenset[str]]    # explorer.audits.marks.event_marks, per frame row
    log: SessionLog                # costs after the transforms the settings switch on
    usage: SessionUsage = SessionUsage()  # what the writer reported (never the cost)
    texts: Texts | None = None     # the texts of the frame's rows, read when shown

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


def load_session(db: Db, session_id: str, order: Order = Order.SEQ,
                 cost_settings: CostSettings = CostSettings(),
                 settings: CompactionSettings = CompactionSettings(),
                 texts_from: Db | None = None) -> SessionData:
    """Read one session narrow (one indexed query, plus one for the transforms when they
    are on, one for the reported usage), with DuckDB's memory bounded (a session of
    millions of events: it spills its sorts). The texts are read later from ``texts_from``
    (default ``db``; the window passes its store, whose connection outlives the worker's)."""
    with bounded_memory(db, SESSION_MEMORY):
        frame = session_events(db, session_id, Order(order), cost_settings, texts=False)
    log = transforms.for_log(db, SessionLog.from_frame(session_id, frame), settings, cost_settings)
    texts = EventTexts(texts_from or db, frame["eid"].to_numpy())
    marks = event_marks(frame, rules_found(db, session_id, Order(order), cost_settings))
    return SessionData(session_id, Order(order), cost_settings, settings, frame, marks, log,
                       _usage(db, session_id), texts)


def _usage(db: Db, session_id: str, batch: int = 10_000) -> SessionUsage:
    """The usage the session's raw records report, read a batch at a time (fetched fully
    before the next statement on ``db``)."""
    cur = db.con.execute(queries.render("session_raws"), {"session_id": session_id})
    return session_usage(raw for rows in iter(lambda: cur.fetchmany(batch), []) for (raw,) in rows)
