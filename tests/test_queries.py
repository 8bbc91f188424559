"""Every named SQL statement parses and plans against a database holding the demo data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import queries
from explorer.audits import cache as audit_cache
from explorer.audits import counts as audits
from explorer.audits import findings_cache, rule_sql
from explorer.audits.cache import COLUMNS as LIST_COLUMNS
from explorer.cli.demo import demo_paths
from explorer.ingest import coerce
from explorer.model import CANONICAL_COLUMNS, ORDER_KEYS, CostSettings, Order
from explorer.search import index as search_index
from explorer.search.words import FOLD
from explorer.store.db import Store
from explorer.tokens import counts as token_counts
from tests.helpers import load

_MARKER = re.compile(r"/\*([A-Z]+)\*/")
_SOURCE = ("(SELECT 0::BIGINT AS row_no, 1::BIGINT AS line, NULL::VARCHAR AS err, "
           "false AS has_extra, 'x' AS src_rec, " +
           ", ".join(f"NULL::VARCHAR AS {c}" for c in CANONICAL_COLUMNS) + ")")
FRAGMENTS = {
    "ORDER": ORDER_KEYS[Order.TS_UNSTABLE],
    # The base relation with its events named (the EV marker it holds, as relations() fills it).
    "ORDERED": audits.ordered_sql(Order.TS).replace("/*EV*/", rule_sql.EVENT_STRUCT),
    "TYPED": "SELECT * FROM parsed",
    "SEQ": "seq",
    "COLUMNS": coerce.column_exprs({c: "VARCHAR" for c in CANONICAL_COLUMNS}),
    "SOURCE": _SOURCE,
    "SRCTEXT": "src_rec",
    "PAIRS": queries.load("fragment_call_pairs"),
    "PREV": queries.load("prev_event_columns"),
    "AUDIT": rule_sql.counts_sql(audits.ordered_sql(Order.TS)),
    "RELATIONS": rule_sql.relations(audits.ordered_sql(Order.TS)),
    "UNITS": rule_sql.units(),
    "UNITCOUNTS": "count(*) AS n",
    "RULECOLUMNS": "n",
    "EV": rule_sql.EVENT_STRUCT,
    "FRAME": f"({audits.ordered_sql(Order.TS).replace('/*EV*/', 'NULL')})",
    **{k.upper(): v for k, v in rule_sql.cache_fragments(LIST_COLUMNS).items()},
    "FINDINGS": findings_cache.findings_sql(Order.TS, batched=True),
    "FOUND": findings_cache.table_name(Order.SEQ),
    "KEYED": queries.load("audit_cache_keyed"),
    "BPETEXT": ", text, ek, pk",
    "TEXT": "text, raw,",
    "EVENTS": ("SELECT 1 AS call_pos, 2 AS result_pos, 3 AS pos, 0 AS turn_no, 4 AS eid, "
               "1 AS seq, 0 AS sub, 'USER' AS kind, NULL AS call_id, NULL AS tool, 0 AS cost, "
               "NULL AS note, 1 AS file_id, 0 AS ts, NULL AS user_id, NULL AS turn, "
               "NULL AS event_id, 0 AS text_chars, 0 AS chars, false AS cjk, NULL AS tokens, "
               "true AS estimated, 'ratios' AS cost_source, NULL AS is_error, "
               "NULL AS archived, NULL AS synthetic, NULL AS branch, NULL AS message_id"),
    "QUERY": "(SELECT 1 AS pos)",
    "FOLD": FOLD,
    "VERIFIED": "SELECT eid FROM kept",
    "MATCH": "contains(d.text, $words)",
    **{k.upper(): v for k, v in CostSettings(tokenizer="o200k").fragments().items()},
}
#: The cache table the statements of each family read (made in demo_store).
CACHE_TABLES = {"audit_cache_": "audit_seq", "copy_table_to_target": "events",
                "findings_cache_": findings_cache.table_name(Order.SEQ),
                "token_counts_": token_counts.table_name("o200k")}


#: Statements EXPLAIN cannot plan (DuckDB plans no ATTACH or DETACH): run by test_save_as.py.
UNPLANNED = {"attach_copy_target", "detach_copy_target"}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    s = Store()
    target = tmp_path_factory.mktemp("copy") / "copy.duckdb"
    Store(target).close()  # what Save Database As… attaches (explorer.store.save_as)
    s.run("attach_copy_target", path=str(target))
    load(s, *demo_paths())
    s.run("create_parsed")
    audit_cache.ensure(s, Order.SEQ)
    findings_cache.ensure(s, Order.SEQ)
    token_counts.ensure(s, CostSettings(tokenizer="o200k"))
    s.con.execute("CREATE TEMP TABLE token_batch (eid BIGINT, bpe_tokens BIGINT)")
    s.con.execute("CREATE TEMP TABLE cand (key_hash UBIGINT)")
    s.con.execute("CREATE TEMP TABLE dups AS SELECT eid, eid AS kept_eid, file_id, line, "
                  "session_id, event_id, seq, sub, kind, call_id FROM events LIMIT 0")
    s.run("create_record_rows")
    s.run("findings_cache_stage")
    s.con.execute("CREATE TEMP TABLE stage_records (row_no BIGINT, rec BIGINT, skipped VARCHAR)")
    search_index.ensure(s)
    s.con.execute("CREATE TEMP TABLE search_batch (eid BIGINT, term VARCHAR)")
    yield s
    s.close()


@pytest.mark.parametrize("name", [n for n in queries.names()
                                  if not n.startswith("create_") and n not in UNPLANNED])
def test_statement_plans(demo_store, name):
    text = queries.load(name)
    markers = set(_MARKER.findall(text))
    fragments = FRAGMENTS | {"TABLE": table for prefix, table in CACHE_TABLES.items()
                             if name.startswith(prefix)}
    assert markers <= set(fragments), f"{name}.sql has an unknown marker"
    # A fragment may hold markers of its own (KEYED holds TABLE): filled after it.
    nested = set().union(*(_MARKER.findall(fragments[m]) for m in markers)) - markers
    assert nested <= set(fragments), f"{name}.sql has a fragment with an unknown marker"
    # A fragment that holds a marker goes in before that marker is filled (PREV holds EV).
    order = sorted(markers, key=lambda m: not _MARKER.search(fragments[m]))
    sql = queries.render(name, **{m.lower(): fragments[m] for m in [*order, *sorted(nested)]})
    if name.startswith("fragment_"):  # a piece of a statement: plan it where it sits
        sql = f"WITH o AS ({FRAGMENTS['ORDERED']}) SELECT * FROM ({sql})"
    elif name.startswith("rule_"):  # a rule's fragment, over the relations it reads
        sql = f"WITH {FRAGMENTS['RELATIONS']} SELECT * FROM ({sql})"
    elif name == "prev_event_columns":  # columns over windows v and s
        sql = f"SELECT {sql} FROM events WINDOW v AS (ORDER BY seq), s AS (ORDER BY seq, sub, eid)"
    elif name == "batch_relations":  # CTEs to follow a WITH
        sql = f"WITH {sql} SELECT * FROM events, duplicates, conflicts"
    elif name == "audit_relations":  # CTEs to follow a WITH
        sql = f"WITH {sql} SELECT * FROM o, timed, pairs, collided_turns"
    params = {p: None for p in re.findall(r"\$([a-z_0-9]+)", sql)}
    plan = demo_store.con.execute("EXPLAIN " + sql, params or None).fetchall()
    assert plan


def test_every_statement_is_documented():
    # names() is what the plan test above runs over: every .sql file of queries/
    shipped = sorted(p.stem for p in Path(queries.__file__).parent.glob("*.sql"))
    assert shipped and queries.names() == shipped
    for name in queries.names():
        assert queries.load(name).lstrip().startswith("--"), f"{name}.sql lacks its comment"
