"""Every finding of the corpus, materialised once per order into a table kept with the database.

``ensure`` computes the findings of one order (exactly :func:`explorer.audits.counts.findings`: same
units, same events) into ``findings_<order>``, one row per finding: a number ``n`` (1, 2, 3 …
by rule, session, first event, so each rule holds one contiguous range of ``n``), ``rule``,
``session_id``, ``events`` (the JSON list of AUDITS.md), ``n_events``, ``first_seq`` and
``first_sub`` (and ``unit_pos``, the unit's place in :func:`explorer.audits.counts.findings`'
order). The meta table records the data version the table was computed for: an unchanged
``--db`` database reopens with its findings, and any import makes them stale.

The findings are computed one batch of sessions at a time (``session_batches.sql``: about
:data:`~explorer.audits.stamped_tables.BATCH_EVENTS` events each; every rule counts within a
session, so a batch's findings are those of its sessions), gathered in a temporary table and
numbered in one last statement: DuckDB sorts one batch's events at a time, within the
memory :func:`~explorer.audits.stamped_tables.build_steps` bounds.
"""

from __future__ import annotations

import json
from typing import Iterator

import duckdb

import queries
from explorer.audits import rule_sql
from explorer.audits.counts import FINDING_RULES, ordered_sql
from explorer.audits.rule_sql import CACHE_FORMAT
from explorer.audits.stamped_tables import BATCH_EVENTS, BUILDING, acquire, build_steps
from explorer.jobs import ProgressHook, StopHook
from explorer.model import CostSettings, Order
from explorer.store.db import Db, data_version

#: The cache table of each order: the only names ever spliced into a statement here.
TABLES = {order: f"findings_{order.value.replace('-', '_')}" for order in Order}


def findings_sql(order: Order, batched: bool = False) -> str:
    """The ``findings`` statement of :func:`explorer.audits.counts.findings` for ``order``
    (of the sessions ``$lo`` … ``$hi`` when ``batched``)."""
    return rule_sql.findings_sql(ordered_sql(Order(order)), batched)


def table_name(order: Order) -> str:
    return TABLES[Order(order)]


def _meta_key(order: Order) -> str:
    return f"findings:{Order(order).value}"


def _stamp(db: Db) -> str:
    return f"{CACHE_FORMAT}:{data_version(db)}"


def _checked(table: str) -> str:
    if table not in TABLES.values():
        raise ValueError(f"not a findings cache table: {table!r}")
    return table


def is_fresh(db: Db, order: Order) -> bool:
    """Whether ``findings_<order>`` holds the findings of the events as they are now."""
    table = table_name(order)
    if table not in {r[0] for r in db.run("table_names")}:
        return False
    return db.one("get_meta", key=_meta_key(order)).get("value") == _stamp(db)


def ensure(db: Db, order: Order, progress: ProgressHook | None = None,
           should_stop: StopHook | None = None, *, after: int = 0) -> str:
    """Compute the findings of ``order`` unless they are fresh; return the table's name.

    ``progress(done, total)`` counts the steps (one per batch of sessions, then the table;
    ``after`` more steps the caller runs next are counted in ``total``); when
    ``should_stop()`` turns true the statement is interrupted, the transaction rolled back
    (the table and meta stay as they were) and :class:`explorer.jobs.Cancelled` raised.
    ``db`` is a connection of its own (a cursor on a worker thread).
    """
    order = Order(order)
    table = table_name(order)
    what = f"findings ({order.value})"
    if not is_fresh(db, order):
        acquire(should_stop, what, progress, after)
        try:
            if not is_fresh(db, order):
                _compute(db, order, progress, should_stop, after)
        except duckdb.TransactionException:
            if not is_fresh(db, order):   # else another process committed them first
                raise
        finally:
            BUILDING.release()
    return table


def steps(db: Db, order: Order) -> list[list[tuple[str, dict]]]:
    """The statements that build the findings table of ``order``, step by step: one step
    per batch of sessions (the first also makes the stage), then the table."""
    params = CostSettings().params()
    insert = queries.render("findings_cache_insert", findings=findings_sql(order, batched=True))
    plan: list[list[tuple[str, dict]]] = [
        [(insert, params | {"lo": lo, "hi": hi})]
        for lo, hi, _ in db.run("session_batches", size=BATCH_EVENTS)]
    stage = (queries.load("findings_cache_stage"), {})
    plan[:1] = [[stage, *(plan[0] if plan else [])]]
    create = queries.render("findings_cache_create", table=table_name(order))
    plan.append([(create, {"rules": list(FINDING_RULES)}),
                 (queries.load("findings_cache_unstage"), {})])
    return plan


def _compute(db: Db, order: Order, progress: ProgressHook | None,
             should_stop: StopHook | None, after: int) -> None:
    build_steps(db, lambda d: steps(d, order), _meta_key(order), _stamp,
                f"findings ({order.value})", progress, should_stop, after=after)


def rule_ranges(db: Db, table: str) -> dict[str, tuple[int, int]]:
    """Each rule's ``(first n, count)`` in ``table``, for every rule of FINDING_RULES
    (``(0, 0)`` when it has none); a rule's findings are ``n`` first … first + count − 1."""
    found = {rule: (int(first), int(count))
             for rule, first, count in db.run("findings_cache_ranges", {"table": _checked(table)})}
    return {rule: found.get(rule, (0, 0)) for rule in FINDING_RULES}


def rule_counts(db: Db, table: str) -> dict[str, int]:
    """How many findings of each rule ``table`` holds (every rule of FINDING_RULES)."""
    return {rule: count for rule, (_, count) in rule_ranges(db, table).items()}


def read_block(db: Db, table: str, lo: int, hi: int, *, rule: str | None = None,
               session_id: str | None = None, skip: int = 0, limit: int = 256) -> list[tuple]:
    """Rows ``(n, rule, session_id, events JSON, n_events, first_seq, first_sub)`` with
    ``lo <= n <= hi``, of ``rule`` / ``session_id`` when given, in ``n`` order."""
    return db.run("findings_cache_block", {"table": _checked(table)}, lo=lo, hi=hi,
                  rule=rule, session=session_id, skip=skip, limit=limit)


def count_session(db: Db, table: str, lo: int, hi: int, session_id: str) -> int:
    """How many findings with ``lo <= n <= hi`` belong to ``session_id``."""
    return int(db.run("findings_cache_count", {"table": _checked(table)},
                      lo=lo, hi=hi, session=session_id)[0][0])


def all_findings(db: Db, table: str) -> Iterator[dict]:
    """Every finding of ``table`` as :func:`explorer.audits.counts.findings` gives them (the
    same dicts, the same order), read in blocks."""
    cur = db.con.execute(queries.render("findings_cache_all", table=_checked(table)),
                         {"rules": list(FINDING_RULES)})
    while rows := cur.fetchmany(10_000):
        for rule, session_id, events in rows:
            yield {"rule": rule, "session_id": session_id, "events": json.loads(events)}


def session_findings(db: Db, table: str, session_id: str) -> list[dict]:
    """The findings of one session, by first event then ``n`` (the order F3 steps in):
    ``{"n", "rule", "session_id", "events"}``."""
    rows = db.run("findings_cache_session", {"table": _checked(table)}, session=session_id)
    return [{"n": n, "rule": rule, "session_id": session_id, "events": json.loads(events)}
            for n, rule, events in rows]
