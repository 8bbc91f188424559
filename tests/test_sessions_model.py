"""The session list: the audit cache tables (core) and the lazy model over them (pytest-qt).

Everything is compared with :func:`explorer.audits.counts.session_counts`, sorted and filtered by
polars: the model must show exactly those rows, in that order, whatever it reads lazily.
"""

from __future__ import annotations

import threading
from pathlib import Path

import polars as pl
import pytest
from PySide6.QtCore import QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableView

from explorer.audits import cache as audit_cache
from explorer.audits import counts as audits
from explorer.audits.cache import COLUMNS, ListQuery
from explorer.cli.demo import demo_paths
from explorer.cli.generate import generate
from explorer.ingest.imports import import_paths
from explorer.jobs import Cancelled
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from widgets.app import make_window
from widgets.sessions_model import SessionsModel

BLOCK = 16
INJECTION = "'; DROP TABLE events; --"
DISPLAY, USER = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole


@pytest.fixture
def demo(store) -> Store:
    """The demo data in a database of the test's own (it may import more)."""
    import_paths(store, [str(p) for p in demo_paths()])
    return store


@pytest.fixture(scope="module")
def shared() -> Store:
    """The demo data in a database the tests of this module only read (and cache tables)."""
    s = Store()
    import_paths(s, [str(p) for p in demo_paths()])
    yield s
    s.close()


@pytest.fixture
def extra_file(tmp_path) -> Path:
    path = tmp_path / "extra.jsonl"
    generate(path, sessions=7, turns=3, seed=11)
    return path


def expected(frame: pl.DataFrame, query: ListQuery) -> pl.DataFrame:
    """``query`` applied to a ``session_counts`` frame by polars, independently of SQL."""
    keep = pl.col("session_id").str.to_lowercase().str.contains(query.text.lower(), literal=True)
    if query.only_findings:
        keep = keep & pl.any_horizontal([pl.col(c) > 0 for c in audits.FINDING_RULES])
    keys = ["session_id"] if query.sort == "session_id" else [query.sort, "session_id"]
    return frame.filter(keep).sort(keys, descending=query.descending).select(COLUMNS)


def shown(model: SessionsModel) -> list[tuple]:
    """Every row the model shows, raw values, read the way a view does (cell by cell)."""
    return [tuple(model.data(model.index(r, c), USER) for c in range(model.columnCount()))
            for r in range(model.rowCount())]


def lazy_model(store: Store, order: Order = Order.SEQ, **kwargs) -> SessionsModel:
    model = SessionsModel(block_size=BLOCK, **kwargs)
    model.set_source(store, audit_cache.ensure(store, order))
    return model


def apply(model: SessionsModel, query: ListQuery) -> None:
    model.set_filter(query.text, query.only_findings)
    order = Qt.SortOrder.DescendingOrder if query.descending else Qt.SortOrder.AscendingOrder
    model.sort(COLUMNS.index(query.sort), order)


# -- the cache tables -----------------------------------------------------------------------
@pytest.mark.parametrize("order", list(Order))
def test_the_cache_table_is_session_counts(shared, order):
    table = audit_cache.ensure(shared, order)
    reference = audits.session_counts(shared, order)
    cached = shared.frame("audit_cache_totals", {"table": table})  # it plans and runs
    assert cached.height == 1
    stored = shared.con.sql(f"SELECT * FROM {table} ORDER BY session_id").pl()
    assert stored.select(reference.columns).equals(reference)
    with_findings = pl.any_horizontal([pl.col(c) > 0 for c in audits.FINDING_RULES])
    assert stored["has_findings"].to_list() == reference.select(with_findings).to_series().to_list()
    assert audit_cache.totals(shared, table) == audits.totals(reference)
    assert 0 < stored["has_findings"].sum() < stored.height


def test_freshness_follows_imports_orders_and_ratios(demo, extra_file):
    assert not audit_cache.is_fresh(demo, Order.SEQ)
    table = audit_cache.ensure(demo, Order.SEQ)
    assert audit_cache.is_fresh(demo, Order.SEQ)
    assert not audit_cache.is_fresh(demo, Order.TS)
    assert not audit_cache.is_fresh(demo, Order.SEQ, CostSettings(cjk_ratio=2.0))
    # Fresh: ensure reads nothing again (a planted value survives).
    demo.con.execute(f"UPDATE {table} SET cost = -7 WHERE session_id = 's000000'")
    audit_cache.ensure(demo, Order.SEQ)
    assert demo.con.execute(f"SELECT count(*) FROM {table} WHERE cost = -7").fetchone()[0] == 1
    # Other ratios: recomputed with them.
    ratios = CostSettings(cjk_ratio=2.0, other_ratio=3.0)
    audit_cache.ensure(demo, Order.SEQ, ratios)
    assert audit_cache.is_fresh(demo, Order.SEQ, ratios)
    assert not audit_cache.is_fresh(demo, Order.SEQ)
    costs = demo.con.sql(f"SELECT session_id, cost FROM {table} ORDER BY session_id").pl()
    assert costs.equals(audits.session_counts(demo, Order.SEQ, ratios).select("session_id", "cost"))
    # An import makes every table stale; ensure then shows the new sessions.
    audit_cache.ensure(demo, Order.SEQ)
    import_paths(demo, [extra_file])
    assert not audit_cache.is_fresh(demo, Order.SEQ)
    audit_cache.ensure(demo, Order.SEQ)
    reference = audits.session_counts(demo, Order.SEQ)
    assert audit_cache.count(demo, table) == reference.height
    assert audit_cache.totals(demo, table) == audits.totals(reference)


def test_a_database_reopened_unchanged_keeps_its_table(tmp_path, extra_file):
    path = tmp_path / "kept.duckdb"
    store = Store(path)
    import_paths(store, [str(p) for p in demo_paths()])
    audit_cache.ensure(store, Order.TS)
    store.close()
    store = Store(path)
    try:
        assert audit_cache.is_fresh(store, Order.TS)
        assert not audit_cache.is_fresh(store, Order.SEQ)
        import_paths(store, [extra_file])
        assert not audit_cache.is_fresh(store, Order.TS)
    finally:
        store.close()


def test_ensure_stops_when_asked_and_keeps_the_old_table(demo, extra_file):
    table = audit_cache.ensure(demo, Order.SEQ)
    before = audit_cache.count(demo, table)
    import_paths(demo, [extra_file])
    with pytest.raises(Cancelled):
        audit_cache.ensure(demo.cursor(), Order.SEQ, should_stop=lambda: True)
    assert not audit_cache.is_fresh(demo, Order.SEQ)
    assert audit_cache.count(demo, table) == before  # rolled back, not half-written


def test_two_jobs_ensuring_the_same_table_both_get_it(demo):
    cursors = [demo.cursor() for _ in range(3)]
    errors: list[BaseException] = []

    def run(db) -> None:
        try:
            audit_cache.ensure(db, Order.TS_UNSTABLE)
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(db,)) for db in cursors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert audit_cache.is_fresh(demo, Order.TS_UNSTABLE)


# -- the lazy model -------------------------------------------------------------------------
FILTERED = [
    ListQuery("session_id", False, "S0001"),
    ListQuery("orphan_results", True, "s000", True),
    ListQuery("cost", False, "", True),
    ListQuery("events", True, "00", False),
    ListQuery("turn_collisions", False, "0", True),
    ListQuery("users", True, "no such session"),
]
SORTS = [ListQuery(c, d) for c in COLUMNS for d in (False, True)]


@pytest.mark.parametrize("order, queries", [(Order.SEQ, SORTS + FILTERED),
                                            (Order.TS_UNSTABLE, SORTS[18:26] + FILTERED)])
def test_the_model_shows_session_counts_under_every_sort_and_filter(qapp, shared, order,
                                                                     queries):
    reference = audits.session_counts(shared, order)
    model = lazy_model(shared, order)
    for query in queries:
        apply(model, query)
        want = expected(reference, query)
        assert model.rowCount() == want.height, query
        assert shown(model) == want.rows(), query


def test_rows_are_read_lazily_in_blocks(qapp, shared):
    model = lazy_model(shared, cached_blocks=3)
    sessions = audits.session_counts(shared).height
    assert model.rowCount() == sessions > 8 * BLOCK
    assert model.block_reads == 0  # the count came first; no row was read
    model.index(0, 3).data()
    model.index(BLOCK - 1, 0).data()
    assert model.block_reads == 1
    model.index(5 * BLOCK, 0).data()
    assert model.block_reads == 2
    for block in (1, 2, 3):
        model.index(block * BLOCK, 0).data()
    assert model.block_reads == 5
    model.index(0, 0).data()  # pushed out of the three kept blocks: read again
    assert model.block_reads == 6
    # A view shows the rows it has room for and reads only their blocks.
    view = QTableView()
    view.resize(600, 200)
    model.sort(COLUMNS.index("cost"), Qt.SortOrder.DescendingOrder)
    reads = model.block_reads
    view.setModel(model)
    view.show()
    qapp.processEvents()
    assert 0 < model.block_reads - reads <= 2 < sessions / BLOCK
    view.close()


def test_a_filter_text_is_only_ever_a_value(qapp, shared):
    model = lazy_model(shared)
    before = audits.session_counts(shared)
    model.set_filter(INJECTION, False)
    assert model.rowCount() == 0 and shown(model) == []
    assert model.row_of(INJECTION) is None
    for text in ("%", "_", "s0000_", ".*"):  # LIKE and regex characters are literal
        model.set_filter(text, False)
        assert model.rowCount() == expected(before, ListQuery(text=text)).height
    model.set_filter("", False)
    assert audits.session_counts(shared).equals(before)  # events still there, untouched
    assert model.rowCount() == before.height


@pytest.mark.parametrize("query", [ListQuery(), ListQuery("events", True),
                                   ListQuery("orphan_results", True, "s0", True),
                                   ListQuery("cost", False, "1")])
def test_row_of_finds_every_shown_session(qapp, shared, query):
    reference = audits.session_counts(shared)
    model = lazy_model(shared)
    apply(model, query)
    want = expected(reference, query)["session_id"].to_list()
    assert [model.row_of(s) for s in want] == list(range(len(want)))
    hidden = set(reference["session_id"]) - set(want)
    assert all(model.row_of(s) is None for s in hidden)
    assert model.row_of("no such session") is None


def test_the_model_passes_the_model_tester(qtmodeltester, shared):
    model = lazy_model(shared)
    qtmodeltester.check(model)
    model.sort(COLUMNS.index("orphan_results"), Qt.SortOrder.DescendingOrder)
    model.set_filter("s0001", True)
    model.set_filter("", False)
    model.set_source(shared, audit_cache.ensure(shared, Order.TS))
    model.set_source(None, None)
    assert model.rowCount() == 0
    qtmodeltester.check(SessionsModel())


def test_persistent_indexes_follow_their_session(qapp, shared):
    model = lazy_model(shared)
    third = QPersistentModelIndex(model.index(3, 2))
    session = model.session_id(3)
    model.sort(COLUMNS.index("events"), Qt.SortOrder.DescendingOrder)
    assert third.isValid() and third.column() == 2
    assert model.session_id(third.row()) == session
    model.set_filter(session.upper(), False)
    assert third.row() == 0 and model.session_id(0) == session
    model.set_filter("no such session", False)
    assert not third.isValid()


def test_headers_alignment_highlight_and_totals(qapp, shared):
    model = lazy_model(shared)
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert header[:5] == ["session id", "events", "turns", "calls", "results"]
    assert len(header) == 20 and "turn collisions" in header   # 20: missing_child (issue 15)
    for rule in audits.FINDING_RULES:
        assert model.headerData(COLUMNS.index(rule), Qt.Orientation.Horizontal,
                                Qt.ItemDataRole.ToolTipRole) == audits.RULE_TEXT[rule]
    model.sort(COLUMNS.index("orphan_results"), Qt.SortOrder.DescendingOrder)
    top = model.index(0, COLUMNS.index("orphan_results"))
    reference = audits.session_counts(shared)
    assert top.data() == f"{reference['orphan_results'].max():,}"
    assert top.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.index(0, COLUMNS.index("events")).data(Qt.ItemDataRole.BackgroundRole) is None
    align = Qt.AlignmentFlag(model.index(0, 1).data(Qt.ItemDataRole.TextAlignmentRole))
    assert align & Qt.AlignmentFlag.AlignRight
    row = reference.filter(pl.col("session_id") == model.session_id(0))
    assert model.index(0, COLUMNS.index("cost")).data(USER) == row["cost"][0]
    assert model.index(0, COLUMNS.index("cost")).data(DISPLAY) == f"{row['cost'][0]:,}"
    assert model.has_findings(0)
    assert model.totals() == audits.corpus_counts(shared)
    assert model.total_sessions() == reference.height
    assert model.widest_text(0) == max(reference["session_id"], key=len)
    assert model.widest_text(COLUMNS.index("cost")) == f"{reference['cost'].max():,}"


def test_a_session_id_is_shown_as_it_is(qapp, store, write_lines):
    html = "<b>bold</b>"
    path = write_lines("html.jsonl", f'{{"session_id": "{html}", "seq": 1, "kind": "USER"}}',
                       '{"session_id": "plain", "seq": 1, "kind": "USER"}')
    import_paths(store, [path])
    model = lazy_model(store)
    model.set_filter("<B>", False)
    assert model.rowCount() == 1 and model.index(0, 0).data() == html


# -- in the window ----------------------------------------------------------------------------
def test_a_database_with_a_fresh_table_shows_its_list_at_once(qtbot, tmp_path):
    path = tmp_path / "fresh.duckdb"
    store = Store(path)
    import_paths(store, [str(p) for p in demo_paths()])
    audit_cache.ensure(store, Order.TS)
    expected_counts = audits.corpus_counts(store, Order.TS)
    store.close()
    window = make_window([], db=str(path), order=Order.TS)
    qtbot.addWidget(window)
    # No audit worker: the table was fresh (the findings panel may compute its own cache).
    assert not [w for w in window.jobs.running() if w.name == "audit"]
    assert window.model.rowCount() == expected_counts["sessions"]
    assert window.totals.counts() == expected_counts
    assert window.sessions.order == Order.TS
    with qtbot.waitSignal(window.audit_shown, timeout=60_000):
        window.set_order(Order.SEQ)  # not computed yet: through a worker
    assert window.model.table() == "audit_seq"
    window.close()


def test_the_window_keeps_the_selected_session_through_sort_and_filter(qtbot):
    paths = [str(p) for p in demo_paths()]
    window = make_window(paths)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=60_000):
        pass
    pane = window.sessions
    reference = audits.session_counts(window.store)
    session = reference["session_id"][37]
    with qtbot.waitSignal(pane.session_selected) as chosen:
        assert pane.select_session(session)
    assert chosen.args == [session]
    sent: list[str] = []
    pane.session_selected.connect(sent.append)
    window.table.sortByColumn(COLUMNS.index("cost"), Qt.SortOrder.DescendingOrder)
    assert pane.selected_session() == session
    window.filter_edit.setText(session[-3:].upper())
    assert pane.selected_session() == session
    assert window.model.rowCount() == expected(reference, ListQuery(text=session[-3:])).height
    window.filter_edit.setText("no such session")
    assert window.model.rowCount() == 0 and pane.selected_session() is None
    assert "0 of 252 sessions" in window.rows_label.text()
    window.filter_edit.clear()
    assert pane.selected_session() == session  # selected again once the filter lets it
    window.only_findings_box.setChecked(True)
    with_findings = expected(reference, ListQuery(only_findings=True))
    assert 0 < window.model.rowCount() == with_findings.height < reference.height
    assert sent == []  # the session panel was not asked to load it again
    # A jump from elsewhere (a finding) clears a filter that hides its session.
    other = reference["session_id"][5]
    window.filter_edit.setText(session)
    assert pane.reveal_session(other) and pane.selected_session() == other
    assert window.filter_edit.text() == "" and not window.only_findings_box.isChecked()
    assert window.model.rowCount() == reference.height and sent == [other]
    assert not pane.reveal_session("no such session")
    window.close()


def test_a_sub_agent_session_is_marked_with_its_parent(store):
    """The real Claude Code sub-agent file beside its parent (corpus): the child session's
    row starts with the child mark and its tooltip names the parent session and Task call;
    the parent's row is not marked."""
    from widgets.sessions_model import CHILD_MARK
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code"
    sid = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
    import_paths(store, [corpus / f"marot-spotter__{sid}.jsonl", corpus / "marot-spotter__agent-aac57f5.jsonl"])
    model = lazy_model(store)
    rows = {model.session_id(r): r for r in range(model.rowCount())}
    assert set(rows) == {sid, f"{sid}/aac57f5"}
    child = model.index(rows[f"{sid}/aac57f5"], 0)
    assert model.data(child, DISPLAY) == CHILD_MARK + f"{sid}/aac57f5"
    assert model.data(child, Qt.ItemDataRole.ToolTipRole).endswith(
        f"sub-agent of {sid}, call toolu_01Hf8v1Za7y4af8VUwSR4CXU")
    assert model.data(model.index(rows[sid], 0), DISPLAY) == sid
    model.close()
