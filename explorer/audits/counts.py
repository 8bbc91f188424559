"""The structural audits of AUDITS.md: counts per session and for the corpus, and findings."""

from __future__ import annotations

import json
from typing import Iterator

import polars as pl

import queries
from explorer.audits.rule_sql import counts_sql, findings_sql
from explorer.audits.rules import COUNT_NAMES, RULE_NAMES, RULE_TEXT
from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts

#: The counts of AUDITS.md and the rules' sentences, as declared in explorer.audits.rules.
__all__ = ["COUNT_NAMES", "FINDING_RULES", "RULE_TEXT", "corpus_counts", "findings",
           "ordered_sql", "session_counts", "totals"]
#: The counts that are findings (each unit counted points at events).
FINDING_RULES = RULE_NAMES


def ordered_sql(order: Order, settings: CostSettings = CostSettings()) -> str:
    """The ``ordered_events`` statement for ``order`` and the cost ``settings`` (to embed in
    other statements; with a tokenizer, its counts must be there: explorer.tokens.counts)."""
    return queries.render("ordered_events", order=ORDER_KEYS[Order(order)],
                          prev=queries.load("prev_event_columns"), **settings.fragments())


def session_counts(db: Db, order: Order = Order.SEQ,
                   settings: CostSettings = CostSettings()) -> pl.DataFrame:
    """One row per session: every count of AUDITS.md, distinct users and total cost."""
    token_counts.ensure(db, settings)
    return db.con.sql(counts_sql(ordered_sql(order, settings)), params=settings.params()).pl()


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
    cur = db.con.execute(findings_sql(ordered_sql(order)), CostSettings().params())
    while rows := cur.fetchmany(10_000):
        for rule, session_id, events, _ in rows:
            yield {"rule": rule, "session_id": session_id, "events": json.loads(events)}
