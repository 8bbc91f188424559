"""The audit and findings tables built one batch of sessions at a time hold exactly the
figures of the one-statement audits (explorer.audits.counts), and ``audit --db`` on a
database already audited reads its tables instead of computing them again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.audits import cache as audit_cache
from explorer.audits import counts as audits
from explorer.audits import findings_cache, stamped_tables
from explorer.cli.demo import demo_paths
from explorer.cli.main import main
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from tests.helpers import jsonl, load

#: Anomalies the demo lacks, each in its own session: duplicates and conflicts (the import
#: rules read those tables), a session whose file holds only duplicates (shared_keys).
EXTRA = [
    {"session_id": "d", "seq": 1, "kind": "USER", "event_id": "e1", "text": "hi"},
    {"session_id": "d", "seq": 2, "kind": "USER", "event_id": "e1", "text": "hi", "ts": 5},
    {"session_id": "d", "seq": 3, "kind": "ASSISTANT", "event_id": "e2", "text": "a"},
    {"session_id": "d", "seq": 4, "kind": "ASSISTANT", "event_id": "e2", "text": "b"},
    {"session_id": "zz", "seq": 1, "kind": "USER", "event_id": "x", "chars": 5},
]
COPY = [{"session_id": "zz", "seq": 1, "kind": "USER", "event_id": "x", "chars": 5}]
#: A real Claude Code session whose Task started a sub-agent, and that sub-agent's own file.
CLAUDE = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code"
PARENT = CLAUDE / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
CHILD = CLAUDE / "marot-spotter__agent-aac57f5.jsonl"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("batched")
    s = Store()
    load(s, *demo_paths(), jsonl(tmp / "extra.jsonl", EXTRA), jsonl(tmp / "copy.jsonl", COPY))
    yield s
    s.close()


def _forget(db) -> None:
    for order in Order:
        db.con.execute(f"DROP TABLE IF EXISTS {audit_cache.table_name(order)}")
        db.con.execute(f"DROP TABLE IF EXISTS {findings_cache.table_name(order)}")


@pytest.mark.parametrize("order", list(Order))
def test_batches_give_the_figures_of_one_statement(store, monkeypatch, order):
    monkeypatch.setattr(stamped_tables, "BATCH_EVENTS", 40)
    monkeypatch.setattr(findings_cache, "BATCH_EVENTS", 40)
    _forget(store)
    assert len(store.run("session_batches", size=40)) > 3
    seen = []
    table = audit_cache.ensure(store.cursor(), order, progress=lambda d, t: seen.append((d, t)))
    total = seen[-1][1]
    assert seen[-1] == (total, total) and total > 4   # a step per batch, then two tables
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    columns = audit_cache.COLUMNS
    got = store.con.sql(f"SELECT * FROM {table} ORDER BY session_id").pl().select(columns)
    want = audits.session_counts(store, order).select(columns)
    assert got.equals(want)
    assert audit_cache.totals(store, table) == audits.corpus_counts(store, order)
    found = findings_cache.table_name(order)
    assert list(findings_cache.all_findings(store, found)) == list(audits.findings(store, order))
    assert audits.corpus_counts(store, order)["shared_keys"] >= 1


def test_a_child_in_another_batch_is_present(monkeypatch):
    """missing_child looks for the child session in the whole database, not in the batch
    being built: with one session per batch, the parent's batch does not hold its child."""
    s = Store()
    load(s, PARENT, CHILD)
    monkeypatch.setattr(stamped_tables, "BATCH_EVENTS", 1)
    monkeypatch.setattr(findings_cache, "BATCH_EVENTS", 1)
    sessions = [row[0] for row in s.con.sql("SELECT DISTINCT session_id FROM events").fetchall()]
    assert len(s.run("session_batches", size=1)) == len(sessions) == 2
    table = audit_cache.ensure(s.cursor(), Order.SEQ)
    want = audits.corpus_counts(s, Order.SEQ)
    assert audit_cache.totals(s, table) == want and want["missing_child"] == 0
    s.close()


def test_other_ratios_reuse_the_findings(store, monkeypatch):
    _forget(store)
    audit_cache.ensure(store.cursor(), Order.SEQ)
    monkeypatch.setattr(findings_cache, "_compute", _refuse)
    settings = CostSettings(cjk_ratio=2.0, other_ratio=3.0)
    table = audit_cache.ensure(store.cursor(), Order.SEQ, settings)
    got = store.con.sql(f"SELECT session_id, cost FROM {table} ORDER BY 1").fetchall()
    want = audits.session_counts(store, Order.SEQ, settings).select("session_id", "cost").rows()
    assert got == want


def _refuse(*args, **kwargs):
    raise AssertionError("computed again")


def _audit(capsys, *argv) -> str:
    assert main(["audit", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("flags", [["--json"], ["--findings", "--json"], ["--order", "ts"]])
def test_audit_db_reads_its_tables_the_second_time(capsys, tmp_path, monkeypatch, flags):
    logs = [str(p) for p in demo_paths()]
    plain = _audit(capsys, *logs, *flags)
    db = str(tmp_path / "a.duckdb")
    first = _audit(capsys, "--db", db, *logs, *flags)
    monkeypatch.setattr(findings_cache, "_compute", _refuse)
    monkeypatch.setattr(audit_cache, "_compute", _refuse)
    monkeypatch.setattr(audits, "corpus_counts", _refuse)
    monkeypatch.setattr(audits, "findings", _refuse)
    second = _audit(capsys, "--db", db, *flags)
    assert first == second == plain
    if "--findings" in flags:
        assert len(plain.splitlines()) > 10 and json.loads(plain.splitlines()[0])["rule"]


def test_the_window_says_which_step_the_audit_is_at(qtbot, store, monkeypatch):
    from widgets.sessions_pane import SessionsPane
    from widgets.workers import JobPool

    monkeypatch.setattr(findings_cache, "BATCH_EVENTS", 100)
    _forget(store)
    jobs = JobPool()
    pane = SessionsPane(store, jobs)
    said, labels = [], []
    pane.audit_progressed.connect(lambda text, done, total: said.append((text, done, total)))
    pane.audit_progressed.connect(lambda *_: labels.append(pane.rows_label.text().strip()))
    with qtbot.waitSignal(pane.shown, timeout=60_000):
        pane.refresh(Order.SEQ, at_once=False)
    jobs.wait()
    total = said[-1][2]
    assert total > 3 and said[0] == (f"Computing the audit table: 1 of {total} steps", 0, total)
    assert said[-1] == (f"Computing the audit table: {total} of {total} steps", total, total)
    assert labels == [text for text, _, _ in said]
    sessions = pane.model.total_sessions()
    assert sessions > 10 and pane.rows_label.text().strip() == f"{sessions:,} sessions"
    pane.close()
