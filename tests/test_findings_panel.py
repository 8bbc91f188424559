"""The findings cache, its lazy model and the findings panel, against explorer.audits.counts.findings."""

from __future__ import annotations

import json
from collections import Counter

import duckdb
import pytest
from PySide6.QtCore import Qt

from explorer.audits import counts as audits
from explorer.audits import findings_cache
from explorer.audits import stamped_tables as derived
from explorer.cli.demo import demo_paths
from explorer.jobs import Cancelled
from explorer.model import Order
from explorer.store import db as store
from explorer.store.db import Store, data_version
from tests.helpers import jsonl, load
from widgets.findings_model import BLOCK, COLUMNS, FindingsModel, events_summary
from widgets.findings_panel import FindingsPanel
from widgets.workers import JobPool

EXTRA = [  # one more session: an orphan result and a dangling call
    {"session_id": "extra", "seq": 1, "kind": "USER", "text": "hi"},
    {"session_id": "extra", "seq": 2, "kind": "RESULT", "call_id": "nobody", "text": "?"},
    {"session_id": "extra", "seq": 3, "kind": "CALL", "call_id": "lost", "text": "ls"},
]
MARKUP = [  # log text that looks like markup
    {"session_id": "<b>key</b>", "seq": 1, "kind": "USER", "text": "hi"},
    {"session_id": "<b>key</b>", "seq": 2, "kind": "RESULT", "call_id": "<i>c</i>", "text": "?"},
]


def _units(items) -> Counter:
    return Counter((f["rule"], f["session_id"], json.dumps(f["events"], sort_keys=True))
                   for f in items)


def _cached(db, table) -> list[dict]:
    rows = findings_cache.read_block(db, table, 1, 10**12, limit=10**9)
    return [{"rule": r[1], "session_id": r[2], "events": json.loads(r[3])} for r in rows]


def _snapshot(db, order) -> tuple:
    table = findings_cache.table_name(order)
    exists = table in {r[0] for r in db.run("table_names")}
    rows = db.con.execute(f"SELECT * FROM {table} ORDER BY n").fetchall() if exists else None
    return exists, rows, db.one("get_meta", key=f"findings:{Order(order).value}")


@pytest.fixture
def demo(store):
    """The demo data in a database of its own (for tests that import more)."""
    load(store, *demo_paths())
    return store


@pytest.fixture(scope="module")
def shared():
    """The demo data, shared by the tests that only read it (and its findings caches)."""
    s = Store()
    load(s, *demo_paths())
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, demo):
    jobs = JobPool()
    widget = FindingsPanel(demo, jobs)
    qtbot.addWidget(widget)
    yield widget
    jobs.cancel_all()
    jobs.wait()
    widget.shutdown()


def _shown(qtbot, panel, order):
    with qtbot.waitSignal(panel.findings_shown, timeout=20_000) as blocker:
        panel.refresh(order)
    return blocker.args[0]


# -- the cache (core) -----------------------------------------------------------------------
@pytest.mark.parametrize("order", list(Order))
def test_cache_equals_audit_findings(shared, order):
    table = findings_cache.ensure(shared, order)
    cached = _cached(shared, table)
    expected = list(audits.findings(shared, order))
    assert _units(cached) == _units(expected)
    counts = Counter(f["rule"] for f in expected)
    assert findings_cache.rule_counts(shared, table) == {r: counts.get(r, 0)
                                                       for r in audits.FINDING_RULES}
    rows = findings_cache.read_block(shared, table, 1, 10**12, limit=10**9)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))  # numbered without gaps
    for n, _, _, events, n_events, first_seq, first_sub in rows:
        first = json.loads(events)[0]
        assert (n_events, first_seq, first_sub) == (len(json.loads(events)), first["seq"],
                                                     first["sub"])
    # each rule holds one contiguous range of numbers, as rule_ranges says
    for rule, (first, count) in findings_cache.rule_ranges(shared, table).items():
        assert [r[0] for r in rows if r[1] == rule] == list(range(first, first + count))


def test_session_findings_are_that_sessions(shared):
    table = findings_cache.ensure(shared, Order.TS)
    mine = findings_cache.session_findings(shared, table, "k0001")
    expected = [f for f in audits.findings(shared, Order.TS) if f["session_id"] == "k0001"]
    assert mine and _units(mine) == _units(expected)
    keys = [(f["events"][0]["seq"], f["events"][0]["sub"], f["n"]) for f in mine]
    assert keys == sorted(keys)


def test_cache_reused_until_an_import(demo, tmp_path):
    table = findings_cache.ensure(demo, Order.SEQ)
    assert findings_cache.is_fresh(demo, Order.SEQ)
    assert not findings_cache.is_fresh(demo, Order.TS)
    demo.con.execute(f"DELETE FROM {table} WHERE n = 1")  # a mark: gone only if recomputed
    findings_cache.ensure(demo, Order.SEQ)
    assert len(_cached(demo, table)) == len(list(audits.findings(demo, Order.SEQ))) - 1
    load(demo, jsonl(tmp_path / "extra.jsonl", EXTRA))
    assert not findings_cache.is_fresh(demo, Order.SEQ)
    findings_cache.ensure(demo, Order.SEQ)
    assert findings_cache.is_fresh(demo, Order.SEQ)
    assert _units(_cached(demo, table)) == _units(audits.findings(demo, Order.SEQ))
    assert ("orphan_results", "extra") in {(f["rule"], f["session_id"])
                                           for f in _cached(demo, table)}


def test_database_file_reopens_with_its_findings(tmp_path):
    path = tmp_path / "t.duckdb"
    first = Store(path)
    load(first, *demo_paths())
    findings_cache.ensure(first, Order.TS_UNSTABLE)
    before = _snapshot(first, Order.TS_UNSTABLE)
    first.close()
    again = Store(path)
    try:
        assert findings_cache.is_fresh(again, Order.TS_UNSTABLE)
        assert _snapshot(again, Order.TS_UNSTABLE) == before
    finally:
        again.close()


@pytest.mark.parametrize("had_table", [False, True])
def test_cancelled_ensure_leaves_the_database_as_it_was(demo, tmp_path, monkeypatch, had_table):
    if had_table:
        findings_cache.ensure(demo, Order.SEQ)
        load(demo, jsonl(tmp_path / "extra.jsonl", EXTRA))  # stale now: ensure would recompute
    before = _snapshot(demo, Order.SEQ)
    version = data_version(demo)
    monkeypatch.setattr(store, "WATCH_POLL_SECONDS", 0.0005)  # interrupt mid-statement
    polls = []

    def stop() -> bool:
        polls.append(1)
        return True

    with pytest.raises(Cancelled) as raised:
        findings_cache.ensure(demo, Order.SEQ, progress=lambda d, t: None, should_stop=stop)
    assert polls and isinstance(raised.value.__cause__, duckdb.InterruptException)
    assert _snapshot(demo, Order.SEQ) == before
    assert data_version(demo) == version and not findings_cache.is_fresh(demo, Order.SEQ)
    # the connection is still usable and a later ensure completes
    table = findings_cache.ensure(demo, Order.SEQ, should_stop=lambda: False)
    assert _units(_cached(demo, table)) == _units(audits.findings(demo, Order.SEQ))


def test_stop_after_the_statement_still_rolls_back(demo, tmp_path, monkeypatch):
    findings_cache.ensure(demo, Order.TS)
    load(demo, jsonl(tmp_path / "extra.jsonl", EXTRA))
    before = _snapshot(demo, Order.TS)
    stopped = []
    run = derived.run_watched

    def run_then_stop(*args):
        run(*args)
        stopped.append(True)  # the table is rebuilt inside the transaction: now stop

    monkeypatch.setattr(derived, "run_watched", run_then_stop)
    with pytest.raises(Cancelled):
        findings_cache.ensure(demo, Order.TS, should_stop=lambda: bool(stopped))
    assert stopped and _snapshot(demo, Order.TS) == before


def test_progress_reaches_the_end(demo):
    seen = []
    findings_cache.ensure(demo, Order.TS, progress=lambda d, t: seen.append((d, t)))
    # steps: one per batch of sessions (the demo is one), then the table
    assert seen == [(0, 2), (1, 2), (2, 2)]


# -- the model ------------------------------------------------------------------------------
def test_model_reads_lazily_and_filters_by_rule(qtmodeltester, shared):
    table = findings_cache.ensure(shared, Order.TS_UNSTABLE)
    ranges = findings_cache.rule_ranges(shared, table)
    model = FindingsModel(shared)
    model.set_table(table, ranges)
    expected = list(audits.findings(shared, Order.TS_UNSTABLE))
    assert model.rowCount() == len(expected) > BLOCK and model.blocks_read == 0
    assert model.index(BLOCK + 3, 0).data() is not None and model.blocks_read == 1
    assert model.index(BLOCK + 4, 2).data() is not None and model.blocks_read == 1  # same block
    shown = [model.finding(r) for r in range(model.rowCount())]
    assert _units(shown) == _units(expected)
    for rule in audits.FINDING_RULES:
        model.set_filter(rule)
        rows = [model.finding(r) for r in range(model.rowCount())]
        assert all(f["rule"] == rule for f in rows)
        assert _units(rows) == _units(f for f in expected if f["rule"] == rule)
        assert model.rowCount() == ranges[rule][1]
    model.set_filter("orphan_results")
    qtmodeltester.check(model)
    model.set_filter(None)
    qtmodeltester.check(model)


def test_model_session_filter(qtmodeltester, shared):
    table = findings_cache.ensure(shared, Order.SEQ)
    model = FindingsModel(shared)
    model.set_table(table, findings_cache.rule_ranges(shared, table))
    expected = [f for f in audits.findings(shared, Order.SEQ) if f["session_id"] == "k0003"]
    model.set_filter(None, "k0003")
    assert _units(model.finding(r) for r in range(model.rowCount())) == _units(expected)
    model.set_filter("duplicates", "k0003")
    assert _units(model.finding(r) for r in range(model.rowCount())) == _units(
        f for f in expected if f["rule"] == "duplicates")
    qtmodeltester.check(model)


def test_events_summary_text():
    events = [{"seq": 12, "sub": 0, "kind": "RESULT", "call_id": "call_3"},
              {"seq": 15, "sub": 1, "kind": "CALL", "call_id": "call_3"},
              {"seq": 16, "sub": 0, "kind": "USER", "call_id": None}]
    assert events_summary(events) == "RESULT call_3 @12 · CALL call_3 @15.1 · USER @16"
    assert events_summary(events * 2, shown=2).endswith("· … +4 more")


# -- the panel ------------------------------------------------------------------------------
def test_panel_rule_filter_and_counts(qtbot, panel, demo):
    assert _shown(qtbot, panel, Order.TS) == Order.TS
    expected = list(audits.findings(demo, Order.TS))
    counts = Counter(f["rule"] for f in expected)
    assert panel.rule_counts() == {r: counts.get(r, 0) for r in audits.FINDING_RULES}
    assert panel.rule_box.itemText(0) == f"All rules ({len(expected):,})"
    assert panel.rule_box.itemData(5, Qt.ItemDataRole.ToolTipRole) == audits.RULE_TEXT[
        panel.rule_box.itemData(5)]
    for i in range(1, panel.rule_box.count()):
        panel.rule_box.setCurrentIndex(i)
        rule = panel.rule_box.itemData(i)
        model = panel.model
        rows = [model.finding(r) for r in range(model.rowCount())]
        assert {f["rule"] for f in rows} <= {rule} and len(rows) == counts.get(rule, 0)
        assert f"({len(rows):,})" in panel.rule_box.itemText(i)
    panel.set_rule(None)
    assert panel.model.rowCount() == len(expected)


def test_panel_drops_a_stale_order_and_follows_imports(qtbot, panel, demo, tmp_path):
    orders = []
    panel.findings_shown.connect(orders.append)
    panel.refresh(Order.SEQ)
    _shown(qtbot, panel, Order.TS_UNSTABLE)
    panel.jobs.wait()
    qtbot.wait(50)  # deliver any queued signal of the older job
    assert orders[-1] == Order.TS_UNSTABLE and Order.SEQ not in orders
    assert panel.model.table() == findings_cache.table_name(Order.TS_UNSTABLE)
    before = panel.model.rowCount()
    load(demo, jsonl(tmp_path / "extra.jsonl", EXTRA))
    _shown(qtbot, panel, Order.TS_UNSTABLE)
    assert panel.model.rowCount() == len(list(audits.findings(demo, Order.TS_UNSTABLE))) > before


def test_double_click_and_enter_emit_the_finding(qtbot, panel):
    _shown(qtbot, panel, Order.SEQ)
    panel.set_rule("orphan_results")
    panel.resize(800, 400)
    panel.show()
    qtbot.waitExposed(panel)
    index = panel.model.index(2, 1)
    expected = panel.model.finding(2)
    rect = panel.view.visualRect(index)
    with qtbot.waitSignal(panel.finding_activated) as blocker:
        qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [expected["session_id"], expected["events"]]
    assert expected["rule"] == "orphan_results" and expected["events"][0]["kind"] == "RESULT"
    panel.view.setCurrentIndex(panel.model.index(4, 0))
    with qtbot.waitSignal(panel.finding_activated) as blocker:
        qtbot.keyClick(panel.view, Qt.Key.Key_Return)
    assert blocker.args == [panel.model.finding(4)["session_id"], panel.model.finding(4)["events"]]


def test_markup_in_log_text_shows_literally(qtbot, panel, demo, tmp_path):
    load(demo, jsonl(tmp_path / "markup.jsonl", MARKUP))
    _shown(qtbot, panel, Order.SEQ)
    panel.set_session("<b>key</b>")
    panel.session_box.setChecked(True)
    model = panel.model
    assert model.rowCount() == 1
    row = {name: model.index(0, c).data() for c, name in enumerate(COLUMNS)}
    assert row == {"rule": "orphan results", "session": "<b>key</b>",
                   "events": "RESULT <i>c</i> @2", "count": "1"}
    assert model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole) is None
    assert model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole) is None
    assert panel.status_label.textFormat() == Qt.TextFormat.PlainText
    assert "<b>key</b>" in panel.status_label.text()
