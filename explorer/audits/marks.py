"""Per-event marks of one session for display: which AUDITS.md rule each event falls under.

Computed from a :func:`explorer.tokens.session_events.session_events` frame (one session, one
order), so the tree can mark events without running the corpus audit. The marks come from
the very fragments the counts and findings run (:mod:`explorer.audits.rule_sql`), over the
frame in an in-memory DuckDB, with each event named by its position: an event is marked by
a rule when a finding of that rule points at it (the later event only, for a rule whose
:class:`~explorer.audits.rules.Mark` says ``last``). The tests check each mark against the
findings of :func:`explorer.audits.counts.findings`.

A rule whose fragment reads the store as well (missing_child: the CALL's raw and which
sessions exist, :data:`FROM_STORE`) runs over those relations fetched for the session
(:func:`_store_relations`), so its CALL is marked too.

Only the rules that found something in the session need to run: :func:`rules_found` reads
them from the session's row of a fresh audit table (the counts of the same fragments), so a
session of millions of events with few findings runs few rules, or none.
"""

from __future__ import annotations

import os
import tempfile
import threading

from functools import cache

import duckdb
import numpy as np
import polars as pl

import queries
from explorer.audits import cache as audit_cache
from explorer.audits.row_marks import RowMarks
from explorer.audits.rule_sql import relations, units
from explorer.audits.rules import MARKED, RULES, Rule
from explorer.model import CostSettings, Order
from explorer.store.db import Db

#: Mark names (the AUDITS.md rules they stand for), in display order.
MARKS = tuple(rule.name for rule in MARKED)
#: The frame's columns the fragments read.
MARK_COLUMNS = ("pos", "file_id", "seq", "sub", "eid", "ts", "kind", "call_id", "user_id",
                "turn", "event_id")
_LAST = {rule.name for rule in MARKED if rule.mark.last}
#: One in-memory DuckDB per thread (opening one costs more than the marks of a session).
_LOCAL = threading.local()
#: The events from which the marks' statement runs on several threads.
_MANY = 200_000
#: The marked rules whose fragment reads relations of the store beyond the session's frame
#: (``event_details``, ``events``): fetched for the session, or the rule is not run.
FROM_STORE = frozenset({"missing_child"})


def _connection() -> duckdb.DuckDBPyConnection:
    con = getattr(_LOCAL, "con", None)
    if con is None:
        # Bounded, spilling to the temp directory: the marks of a session of millions of events.
        con = _LOCAL.con = duckdb.connect(config={
            "threads": 1, "memory_limit": "512MB",
            "temp_directory": os.path.join(tempfile.gettempdir(), f"turnscope-marks-{os.getpid()}")})
    return con


@cache
def marks_sql(rules: tuple[Rule, ...] = MARKED) -> str:
    """The statement giving, per finding of the marked ``rules`` in the frame, its rule and
    the positions of its events."""
    ordered = queries.render("marks_events", frame="frame",
                             prev=queries.load("prev_event_columns"))
    return f"WITH {relations(ordered, 'pos')},\nunits AS ({units(rules)})\nSELECT rule, events FROM units"


def rules_found(db: Db, session_id: str, order: Order,
                cost_settings: CostSettings = CostSettings()) -> tuple[Rule, ...]:
    """The marked rules with a finding in the session, by its row of the audit table of
    ``order`` when that table is fresh; every marked rule when it is not (or lacks the
    session)."""
    if not audit_cache.is_fresh(db, order, cost_settings):
        return MARKED
    table = audit_cache.table_name(order)
    rows = db.frame("audit_cache_session", {"table": table}, session_id=session_id)
    if rows.height != 1:
        return MARKED
    counts = rows.row(0, named=True)
    return tuple(rule for rule in MARKED if counts.get(rule.name, 1) != 0)


def event_marks(frame: pl.DataFrame, rules: tuple[Rule, ...] = MARKED, store: Db | None = None,
                session_id: str | None = None) -> RowMarks:
    """For each row of ``frame`` (in its order), the rules among ``rules`` that point at
    that event (:func:`rules_found`: the others have none). The rules of
    :data:`FROM_STORE` run only with the ``store`` and ``session_id`` the frame is of.

    Pair rules (tie_inversions, clock_regressions) mark the later event of the pair, the one
    out of order; grouped rules mark every event of the group. Unmarked rows share one empty
    set (:class:`RowMarks`: a session of millions of events costs a small code per event).
    """
    if frame.is_empty():
        return RowMarks.none(0)
    if not rules:
        return RowMarks.none(frame.height)
    positions = frame["pos"].to_numpy()
    in_order = bool(np.array_equal(positions, np.arange(1, frame.height + 1)))
    con = _connection()
    con.execute(f"SET threads = {_threads(frame.height)}")
    stored = _store_relations(store, session_id) if FROM_STORE & {r.name for r in rules} else {}
    rules = tuple(r for r in rules if r.name not in FROM_STORE or stored)
    if not rules:
        return RowMarks.none(frame.height)
    con.register("frame", frame.select(MARK_COLUMNS).with_columns(
        pl.col("kind").cast(pl.String)))
    for name, relation in stored.items():
        con.register(name, relation)
    try:
        found = con.execute(marks_sql(tuple(rules))).fetchall()
    finally:
        for name in ("frame", *stored):
            con.unregister(name)
    sorter = None if in_order else np.argsort(positions, kind="stable")
    marked: dict[int, set[str]] = {}
    for rule, events in found:
        for pos in events[-1:] if rule in _LAST else events:
            row = pos - 1 if sorter is None else int(sorter[np.searchsorted(positions, pos,
                                                                             sorter=sorter)])
            marked.setdefault(row, set()).add(rule)
    order = {name: i for i, name in enumerate(r.name for r in RULES)}
    return RowMarks.of(frame.height, {row: frozenset(sorted(rules, key=order.get))
                                      for row, rules in marked.items()})


def _store_relations(store: Db | None, session_id: str | None) -> dict[str, pl.DataFrame]:
    """What the :data:`FROM_STORE` fragments read of the store, for one session: the
    ``event_details`` of its CALLs that name a sub-agent session, and the ``events``
    (session ids) of the named children present; {} when there is nothing to mark."""
    if store is None or session_id is None:
        return {}
    calls = store.frame("marks_child_calls", session_id=session_id)
    if calls.is_empty():
        return {}
    children = [c for c in calls["child"].unique().to_list() if c is not None]
    present = [row[0] for row in store.run("sessions_present", ids=children)]
    return {"event_details": calls.select("eid", "raw"),
            "events": pl.DataFrame({"session_id": present}, schema={"session_id": pl.String})}


def _threads(events: int) -> int:
    """One thread for a small session (starting more costs more than its marks)."""
    return 1 if events < _MANY else max(1, min(4, os.cpu_count() or 1))
