"""The texts of one session's events, read for the rows being shown, not for the session.

A session of millions of events is read narrow (:func:`explorer.tokens.session_events.session_events`
with ``texts=False``); the turn tree asks for the one-line preview of the rows it lays out
and the detail for the one row selected. :class:`EventTexts` reads them from DuckDB by eid,
a block of frame rows at a time, and keeps a few blocks of previews (the least recently used
dropped first). :class:`FrameTexts` answers the same from a frame that has its texts.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

import duckdb
import numpy as np
import polars as pl

from explorer.session.corpus_search import literal_pattern
from explorer.session.readable import one_line
from explorer.store.db import Db
from explorer.text_escape import visible

#: The longest preview, in characters (a longer one is cut and ends with an ellipsis).
PREVIEW = 80
#: The longest text a preview parses as JSON (arguments of a tool writing a big file).
PREVIEW_PARSED = 200_000
#: Frame rows read at once, and the blocks of previews kept.
BLOCK = 256
KEPT = 64


def preview_text(text: str | None) -> str:
    """The first words of an event's text, on one line, at most :data:`PREVIEW` characters:
    a JSON object (tool arguments) as its ``key: value`` members, ANSI codes stripped
    (:func:`explorer.session.readable.one_line`)."""
    text = text or ""
    if len(text) > PREVIEW_PARSED:   # too long to parse for a preview: its start, as text
        text = text[:PREVIEW * 20]
    flat = visible(one_line(text))   # no bidi or zero-width left hidden
    return flat if len(flat) <= PREVIEW else flat[:PREVIEW - 1] + "…"


class Texts(Protocol):
    """What the tree and the detail read of a session's texts (by frame row)."""

    def preview(self, row: int) -> str: ...

    def detail(self, row: int) -> dict: ...

    def search(self, needle: str) -> list[int]: ...

    def close(self) -> None: ...


class FrameTexts:
    """The texts of a frame that has its ``text`` (and ``raw``) columns."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self._frame = frame
        self._previews: dict[int, str] = {}

    def preview(self, row: int) -> str:
        cached = self._previews.get(row)
        if cached is None:
            text = self._frame["text"][row] if "text" in self._frame.columns else None
            cached = self._previews[row] = preview_text(text)
        return cached

    def detail(self, row: int) -> dict:
        return {c: self._frame[c][row] for c in ("text", "raw") if c in self._frame.columns}

    def texts(self, rows) -> dict[int, str | None]:
        """The whole texts of ``rows`` (a request copied as JSON)."""
        column = self._frame["text"] if "text" in self._frame.columns else None
        return {r: None if column is None else column[r] for r in rows}

    def search(self, needle: str) -> list[int]:
        """The rows whose text holds ``needle`` (case folded), in frame order."""
        if not needle or "text" not in self._frame.columns:
            return []
        found = self._frame["text"].str.to_lowercase().str.contains(needle.lower(), literal=True)
        return found.fill_null(False).arg_true().to_list()

    def close(self) -> None:
        pass


class EventTexts:
    """The texts of a narrow frame's rows (``eids[row]``), read from the store by eid.

    ``source`` is a :class:`~explorer.store.db.Db` whose connection stays open while the
    session is shown (the store); each read goes through a cursor of its own, made and closed
    on the thread that reads (the GUI thread: a block of 256 rows reads in milliseconds, like
    the session list's), so none outlives the store. ``reads`` counts the statements run.
    """

    def __init__(self, source: Db, eids: np.ndarray, block: int = BLOCK, kept: int = KEPT) -> None:
        self._source = source
        self._eids = np.asarray(eids, dtype=np.int64)
        self._block, self._kept = block, kept
        self._blocks: OrderedDict[int, list[str]] = OrderedDict()
        self.reads = 0

    def _read(self, eids: np.ndarray) -> dict[int, tuple[str | None, str | None]] | None:
        """The texts of ``eids``; None when the store cannot be read (closed as the window
        quits: a Qt model's data() must not raise)."""
        if not len(eids):
            return {}
        self.reads += 1
        try:
            db = Db(self._source.con.cursor())
            try:
                rows = db.run("event_texts", eids=eids.tolist(), low=int(eids.min()),
                              high=int(eids.max()))
            finally:
                db.close()
        except duckdb.Error:
            return None
        return {eid: (text, raw) for eid, text, raw in rows}

    def preview(self, row: int) -> str:
        number, offset = divmod(row, self._block)
        block = self._blocks.get(number)
        if block is None:
            eids = self._eids[number * self._block:(number + 1) * self._block]
            found = self._read(eids)
            if found is None:
                return ""   # nothing kept: the next ask reads again
            block = self._blocks[number] = [preview_text(found.get(e, (None,))[0])
                                            for e in eids.tolist()]
            while len(self._blocks) > self._kept:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(number)
        return block[offset]

    def detail(self, row: int) -> dict:
        """The event's text and raw record, and its stored columns a narrow frame may leave
        out (``queries/event_fields.sql``: a session read compact has no ts, event_id...)."""
        self.reads += 1
        try:
            db = Db(self._source.con.cursor())
            try:
                found = db.one("event_fields", eid=int(self._eids[row]))
            finally:
                db.close()
        except duckdb.Error:
            found = {}
        found.pop("eid", None)
        return found or {"text": None, "raw": None}

    def texts(self, rows) -> dict[int, str | None]:
        """The whole texts of ``rows``, read in one statement (a request copied as JSON)."""
        rows = list(rows)
        found = self._read(self._eids[rows]) or {} if rows else {}
        return {r: found.get(int(self._eids[r]), (None,))[0] for r in rows}

    def search(self, needle: str) -> list[int]:
        """The rows whose text holds ``needle`` (case folded), in frame order; [] when the
        store cannot be read."""
        if not needle or not len(self._eids):
            return []
        self.reads += 1
        try:
            db = Db(self._source.con.cursor())
            try:
                eids = [e for (e,) in db.run(
                    "event_text_search", eids=self._eids.tolist(), low=int(self._eids.min()),
                    high=int(self._eids.max()), pattern=literal_pattern(needle))]
            finally:
                db.close()
        except duckdb.Error:
            return []
        return np.flatnonzero(np.isin(self._eids, np.asarray(eids, dtype=np.int64))).tolist()

    def close(self) -> None:
        """Let go of the previews kept (a new session is shown)."""
        self._blocks.clear()
