"""Everything the window shows about one session, loaded at once (off the GUI thread).

The frame, its per-event marks and its :class:`SessionLog` share their rows: row ``i`` of
the frame is event ``i`` of the log, in the order being viewed.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from explorer.audits.marks import event_marks
from explorer.compaction import transforms
from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
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
        return self.frame["turn_no"].n_unique() if self.frame.height else 0


def load_session(db: Db, session_id: str, order: Order = Order.SEQ,
                 cost_settings: CostSettings = CostSettings(),
                 settings: CompactionSettings = CompactionSettings()) -> SessionData:
    """Read one session (one indexed query, plus one for the transforms when they are on),
    with DuckDB's memory bounded (a session of millions of events: it spills its sorts)."""
    with bounded_memory(db, SESSION_MEMORY):
        frame = session_events(db, session_id, Order(order), cost_settings)
    log = transforms.for_log(db, SessionLog.from_frame(session_id, frame), settings, cost_settings)
    usage = session_usage(frame["raw"].drop_nulls()) if "raw" in frame.columns else SessionUsage()
    return SessionData(session_id, Order(order), cost_settings, settings, frame,
                       event_marks(frame), log, usage)
