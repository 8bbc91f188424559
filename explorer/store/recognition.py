"""Whether a DuckDB file is a Turnscope database: recognised positively, never guessed.

Turnscope writes a marker row (``application`` = ``turnscope``) into ``meta`` when it creates
a database and when it upgrades one. A database without it is Turnscope's only when its tables
are exactly those of one of Turnscope's schemas (databases written before the marker existed):
anything else is another program's, and is refused untouched (issue 14: a ``meta`` table alone
once let Turnscope drop another program's ``events`` and ``files``).
"""

from __future__ import annotations

#: The marker row only Turnscope writes into ``meta``.
MARKER_KEY, MARKER_VALUE = "application", "turnscope"

_V1 = frozenset({"meta", "files", "events", "rejected", "duplicates", "conflicts"})
#: The tables of each schema Turnscope has written (git history of queries/create_*.sql):
#: schema 1 (623febd), schema 2 added event_details (36dd111), schema 3 added
#: imports_in_progress (da03c0a; a schema 3 database made before it existed lacks it);
#: schema 4 has the tables of schema 3, event_details with parent_session, parent_call and
#: note (issue 15): a database of schema 3 is recognised and rebuilt (explorer.store.db).
SCHEMA_TABLES: tuple[frozenset[str], ...] = (
    _V1, _V1 | {"event_details"}, _V1 | {"event_details", "imports_in_progress"},
)
#: Made in any database that lacks it, whatever its schema (explorer.store.durability).
OPTIONAL_TABLES = frozenset({"import_failures"})
#: Derived tables cached beside them (explorer.audits.cache: audit_<order>,
#: explorer.audits.findings_cache: findings_<order>, explorer.tokens.counts: tokens_<name>).
CACHE_PREFIXES = ("audit_", "findings_", "tokens_")


def table_names(rows: list[tuple[str, str]]) -> set[str]:
    """(schema, table) rows as names: those of ``main`` bare, others qualified (``s.t``)."""
    return {name if schema == "main" else f"{schema}.{name}" for schema, name in rows}


def is_earlier_schema(tables: set[str]) -> bool:
    """Whether ``tables`` are exactly those of one of Turnscope's schemas, with its caches."""
    tables = tables - OPTIONAL_TABLES
    core = {t for t in tables if not t.startswith(CACHE_PREFIXES)}
    return core in SCHEMA_TABLES and (core == tables or core != _V1)   # caches came in schema 2


def refusal(path: object, tables: set[str]) -> str:
    """Why the database at ``path`` is refused: it holds tables Turnscope did not write."""
    names = sorted(tables)
    shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
    return (f"{path}: not a Turnscope database: it holds tables {shown} that Turnscope did "
            "not write; it was left untouched: give another database file "
            "(a new one is created)")
