"""The per-session audit table, materialised once per order and token ratios, read in blocks.

``ensure`` computes :func:`explorer.audits.counts.session_counts` (every count of AUDITS.md, distinct
users, cost) into ``audit_<order>``, with ``has_findings`` and one rank column per shown
column (the row's place when sorted by that column, then ``session_id``): any sort of the
session list is then an ORDER BY of one integer. The meta table records the data version and
the ratios the table was computed for: an unchanged ``--db`` database reopens with its list at
once, and any import (or other ratios) makes it stale.

The readers (:func:`count`, :func:`read_rows`, :func:`position`, :func:`totals`,
:func:`widest`) take a :class:`ListQuery`, the sort and filter of the list; its values reach
SQL as bound parameters, and the table name only ever comes from :data:`TABLES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import queries
from explorer.audits import findings_cache
from explorer.audits.rule_sql import CACHE_FORMAT, audit_sql, cache_fragments
from explorer.audits.rules import COUNT_NAMES, RULE_NAMES
from explorer.audits.stamped_tables import BUILDING, acquire, build_steps
from explorer.jobs import ProgressHook, StopHook
from explorer.model import CostSettings, Order
from explorer.store.db import Db, data_version
from explorer.tokens import counts as token_counts

#: The columns of the session list, in order: identity, sizes, every finding, users, cost.
COLUMNS = ("session_id", "events", "turns", "calls", "results", *RULE_NAMES, "users", "cost")
#: The cache table of each order: the only names ever spliced into a statement here.
TABLES = {order: f"audit_{order.value.replace('-', '_')}" for order in Order}
#: The markers of the statements that list columns, rendered from the rule declarations.
_COLUMN_FRAGMENTS = cache_fragments(COLUMNS)


@dataclass(frozen=True)
class ListQuery:
    """What the session list shows: sessions whose id holds ``text`` (any case, literally)
    and, when ``only_findings``, that have a finding; sorted by ``sort`` (a name of
    :data:`COLUMNS`) then session id, or the exact reverse when ``descending``."""

    sort: str = "session_id"
    descending: bool = False
    text: str = ""
    only_findings: bool = False

    def __post_init__(self) -> None:
        if self.sort not in COLUMNS:
            raise ValueError(f"not a column of the session list: {self.sort!r}")

    @property
    def unfiltered(self) -> bool:
        return not self.text and not self.only_findings

    def rank_params(self, reverse: bool = False) -> dict:
        """The sort's parameters: the column's name and the sign of its rank."""
        return {"sort": self.sort, "sign": -1 if self.descending != reverse else 1}

    def filter_params(self) -> dict:
        return {"text": self.text, "only_findings": self.only_findings}

    def params(self, reverse: bool = False) -> dict:
        return self.rank_params(reverse) | self.filter_params()


def table_name(order: Order) -> str:
    return TABLES[Order(order)]


def _checked(table: str, *markers: str) -> dict[str, str]:
    """The table's fragment, once it is known to be one of :data:`TABLES`, and the column
    fragments named by ``markers``."""
    if table not in TABLES.values():
        raise ValueError(f"not an audit cache table: {table!r}")
    return {"table": table, **{m: _COLUMN_FRAGMENTS[m] for m in markers}}


def _keyed(table: str) -> dict[str, str]:
    """The fragments of a statement that reads the list by sort key (audit_cache_keyed.sql,
    whose own table marker is then filled too)."""
    return {"keyed": queries.load("audit_cache_keyed"), **_checked(table, "rankcases")}


def _listed(table: str) -> dict[str, str]:
    """The fragments of a statement that reads rows of the list by sort key."""
    return _keyed(table) | {"listed": _COLUMN_FRAGMENTS["listed"]}


def _meta_key(order: Order) -> str:
    return f"audit:{Order(order).value}"


def _stamp(db: Db, settings: CostSettings) -> str:
    return (f"{CACHE_FORMAT}:{data_version(db)}:{settings.cjk_ratio!r}:{settings.other_ratio!r}"
            f":{settings.tokenizer or ''}")


def is_fresh(db: Db, order: Order, cost_settings: CostSettings = CostSettings()) -> bool:
    """Whether ``audit_<order>`` holds the audit of the events as they are now, computed
    with ``cost_settings``' ratios (a cheap look at the meta table: fine on the GUI thread)."""
    if table_name(order) not in {r[0] for r in db.run("table_names")}:
        return False
    return db.one("get_meta", key=_meta_key(order)).get("value") == _stamp(db, cost_settings)


def ensure(db: Db, order: Order, cost_settings: CostSettings = CostSettings(),
           progress: ProgressHook | None = None, should_stop: StopHook | None = None) -> str:
    """Compute the audit table of ``order`` unless it is fresh; return the table's name.

    The rule counts come from the findings table of ``order`` (made fresh first:
    :func:`explorer.audits.findings_cache.ensure`, in batches of sessions), the sizes, users
    and cost from the events. ``db`` is a connection of its own (a cursor on a worker
    thread). ``progress(done, total)`` counts the steps (the findings' batches, then this
    table); when ``should_stop()`` turns true the statement is interrupted, the transaction
    rolled back (table and meta stay as they were) and :class:`explorer.jobs.Cancelled` raised.
    """
    order = Order(order)
    table = table_name(order)
    if is_fresh(db, order, cost_settings):
        return table
    steps = _Steps(progress)
    acquire(should_stop, f"audit ({order.value})", steps, after=1)
    try:
        if not is_fresh(db, order, cost_settings):
            _compute(db, order, cost_settings, steps, should_stop)
    finally:
        BUILDING.release()
    return table


class _Steps:
    """The progress of the audit's steps: the findings' (computed here or by a build this
    one waited for), then this table's, the last one."""

    def __init__(self, progress: ProgressHook | None) -> None:
        self.progress = progress
        self.before = 0   # the findings' steps

    def __call__(self, done: int, total: int) -> None:
        self.before = total - 1
        if self.progress:
            self.progress(done, total)


def _compute(db: Db, order: Order, cost_settings: CostSettings, steps: _Steps,
             should_stop: StopHook | None) -> None:
    table = table_name(order)
    token_counts.ensure(db, cost_settings, progress=steps.progress, should_stop=should_stop)
    findings = findings_cache.ensure(db, order, steps, should_stop, after=1)

    def plan(d: Db) -> list:
        if not findings_cache.is_fresh(d, order):
            raise RuntimeError("the events changed while the audit table was computed")
        sql = queries.render("audit_cache_create",
                             audit=audit_sql(findings, cost_settings.fragments()),
                             **_checked(table, "anyfinding", "ranks"))
        return [[(sql, cost_settings.params())]]

    build_steps(db, plan, _meta_key(order), lambda d: _stamp(d, cost_settings),
                f"audit ({order.value})", steps.progress, should_stop, done=steps.before)


def totals(db: Db, table: str) -> dict[str, int]:
    """The corpus counts of AUDITS.md (as :func:`explorer.audits.counts.totals` gives them), summed
    in SQL over ``table``; ``sessions`` is the number of rows."""
    row = db.one("audit_cache_totals", _checked(table, "sums"))
    return {name: int(row.get(name) or 0) for name in COUNT_NAMES}


def widest(db: Db, table: str) -> dict[str, object]:
    """Per column, its widest value: the longest session id, the largest count."""
    return db.one("audit_cache_widths", _checked(table, "maxes"))


def count(db: Db, table: str, query: ListQuery = ListQuery()) -> int:
    """How many sessions of ``table`` the list shows under ``query``."""
    return int(db.run("audit_cache_count", _checked(table), **query.filter_params())[0][0])


def read_rows(db: Db, table: str, query: ListQuery, skip: int, limit: int,
              shown: int) -> list[tuple]:
    """Rows ``skip`` … ``skip + limit - 1`` of the list (``shown`` rows in all, as
    :func:`count` says): the :data:`COLUMNS` values then ``has_findings``, per row.

    Unfiltered, the rows are those whose rank lies in the range (nothing is sorted). Filtered,
    a block past the middle is read from the other end in the reversed order (and turned
    round), so DuckDB never sorts more than half the list to skip over it.
    """
    limit = max(0, min(limit, shown - skip))
    if limit == 0 or skip < 0:
        return []
    if query.unfiltered:
        low = skip - (shown - 1 if query.descending else 0)
        return db.run("audit_cache_range", _listed(table), **query.rank_params(),
                      low=low, high=low + limit - 1)
    if skip + limit <= shown - skip:
        return db.run("audit_cache_block", _listed(table), **query.params(),
                      skip=skip, limit=limit)
    rows = db.run("audit_cache_block", _listed(table), **query.params(reverse=True),
                  skip=shown - skip - limit, limit=limit)
    rows.reverse()
    return rows


def position(db: Db, table: str, query: ListQuery, session_id: str,
             shown: int | None = None) -> int | None:
    """The row of ``session_id`` in the list under ``query``; None when it is not shown.
    ``shown`` (the unfiltered list's length, when known) spares a count."""
    if query.unfiltered:
        rows = db.run("audit_cache_rank", _keyed(table), **query.rank_params(),
                      session_id=session_id)
        if not rows:
            return None
        if not query.descending:
            return int(rows[0][0])
        return int(rows[0][0]) + (shown if shown is not None else count(db, table)) - 1
    rows = db.run("audit_cache_position", _keyed(table), **query.params(),
                  session_id=session_id)
    return int(rows[0][0]) if rows else None
