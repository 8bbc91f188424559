"""The structural audits of AUDITS.md: counts per session and for the corpus, and findings."""

from __future__ import annotations

import json
from typing import Iterator

import polars as pl

import queries
from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts

#: The count names of AUDITS.md, in its order: the keys of ``audit --json``.
COUNT_NAMES = (
    "events", "sessions", "turns", "calls", "results", "duplicates", "event_id_conflicts",
    "shared_keys", "orphan_results", "dangling_calls", "mispair", "duplicate_call_ids",
    "tie_inversions", "clock_regressions", "ts_ties", "collapsed_keys", "turn_collisions",
)
#: The counts that are findings (each unit counted points at events).
FINDING_RULES = COUNT_NAMES[5:]

RULE_TEXT = {
    "duplicates": "The same event (event_id and content) was appended again; the copy is dropped.",
    "event_id_conflicts": "Events share an event_id in this session but differ in content.",
    "shared_keys": "This session's events came from more than one input file.",
    "orphan_results": "A tool result whose call_id has no call anywhere in its session.",
    "dangling_calls": "A tool call whose call_id has no result anywhere in its session.",
    "mispair": "A tool result that comes before every call of its call_id in this order.",
    "duplicate_call_ids": "Two or more tool calls in this session carry the same call_id.",
    "tie_inversions": "Adjacent events with equal timestamps, shown against append order.",
    "clock_regressions": "A timestamp earlier than the previous one in append order.",
    "ts_ties": "A timestamp equal to the previous one in append order.",
    "collapsed_keys": "Events of more than one user_id are stored under this session key.",
    "turn_collisions": "One logged turn number of this session occurs with several user_ids.",
}


def ordered_sql(order: Order, settings: CostSettings = CostSettings()) -> str:
    """The ``ordered_events`` statement for ``order`` and the cost ``settings`` (to embed in
    other statements; with a tokenizer, its counts must be there: explorer.tokens.counts)."""
    return queries.render("ordered_events", order=ORDER_KEYS[Order(order)],
                          **settings.fragments())


def session_counts(db: Db, order: Order = Order.SEQ,
                   settings: CostSettings = CostSettings()) -> pl.DataFrame:
    """One row per session: every count of AUDITS.md, distinct users and total cost."""
    token_counts.ensure(db, settings)
    fragments = {"ordered": ordered_sql(order, settings),
                 "pairs": queries.load("fragment_call_pairs")}
    return db.frame("session_audit", fragments, **settings.params())


def corpus_counts(db: Db, order: Order = Order.SEQ,
                  settings: CostSettings = CostSettings()) -> dict[str, int]:
    """The counts of AUDITS.md for everything in the database, keyed by their names."""
    return totals(session_counts(db, order, settings))


def totals(per_session: pl.DataFrame) -> dict[str, int]:
    """The corpus counts from a frame of :func:`session_counts` (sums; sessions = rows)."""
    return {name: per_session.height if name == "sessions" else int(per_session[name].sum() or 0)
            for name in COUNT_NAMES}


def findings(db: Db, order: Order = Order.SEQ) -> Iterator[dict]:
    """One dict per unit counted, as ``audit --findings --json`` prints them (AUDITS.md)."""
    cur = db.con.execute(
        queries.render("findings", ordered=ordered_sql(order),
                       pairs=queries.load("fragment_call_pairs")),
        CostSettings().params())
    while rows := cur.fetchmany(10_000):
        for rule, session_id, events in rows:
            yield {"rule": rule, "session_id": session_id, "events": json.loads(events)}
