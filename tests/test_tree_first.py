"""A session's turn tree is shown before the rest of it is read (issue 13, item 5): the tree's
few columns are the full load's, row for row; the model holds the turns only until one is
expanded, and a turn's fetch makes exactly its rows; the rest, when it comes, fills the tree
in place (what was expanded and selected stays); the loader delivers the tree first."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QModelIndex

from explorer.cli.demo import demo_paths
from explorer.compaction.log import SessionLog
from explorer.session.data import TREE_COLUMNS, load_session, load_tree
from explorer.session.turn_tree import TurnTree
from explorer.store.db import Store
from tests.helpers import jsonl, load
from widgets.turn_tree_cells import MARK
from widgets.turn_tree_model import TurnTreeModel
from widgets.workers import JobPool


@pytest.fixture(scope="module")
def demo():
    s = Store()
    load(s, *demo_paths())
    yield s
    s.close()


def _sessions(db, n: int = 6) -> list[str]:
    """The demo's biggest sessions (the most turns and pairs)."""
    return [r[0] for r in db.con.execute(
        "SELECT session_id FROM events GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT ?",
        [n]).fetchall()]


def _full(demo, session, order="seq"):
    data = load_session(demo, session, order)
    return data, TurnTree.build(data.frame, data.marks)


@pytest.mark.parametrize("order", ["seq", "ts-unstable"])
def test_the_tree_read_first_is_the_full_loads_tree_without_marks(demo, order):
    for session in _sessions(demo):
        first = load_tree(demo, session, order)
        data, tree = _full(demo, session, order)
        assert first.frame.columns == list(TREE_COLUMNS)   # the few columns, no more
        assert first.frame.equals(data.frame.select(TREE_COLUMNS))   # row for row
        for name in ("turn_no", "tree_order", "tree_pos", "turn_of", "turn_size", "turn_cost"):
            assert np.array_equal(getattr(first.tree, name), getattr(tree, name)), name
        assert np.array_equal(first.tree.top_rows.rows, tree.top_rows.rows)
        assert np.array_equal(first.tree.result_of.to, tree.result_of.to)
        assert not first.tree.turn_marks and not any(first.marks)   # no rule run yet
        assert tree.turn_marks or not any(data.marks)
        assert first.turns == data.turns


@pytest.mark.parametrize("order", ["seq", "ts-unstable"])
def test_the_rest_read_after_the_tree_is_the_full_load(demo, order):
    for session in _sessions(demo):
        first = load_tree(demo, session, order)
        after = load_session(demo, session, order, first=first)
        alone = load_session(demo, session, order)
        # read compact: the columns both have hold the same values, row for row ...
        shared = [c for c in after.frame.columns if c in alone.frame.columns]
        assert len(shared) > len(TREE_COLUMNS)
        assert after.frame.select(shared).rows() == alone.frame.select(shared).rows()
        assert after.frame.height and after.frame.height == alone.frame.height
        # ... the ids told apart by numbers as by their strings, the branch by a flag ...
        for name in ("user", "message"):
            codes = after.frame[f"{name}_key"].rank("dense").to_list()
            assert codes == alone.frame[f"{name}_id"].rank("dense").to_list(), name
        assert after.frame["branched"].to_list() == alone.frame["branch"].is_not_null().to_list()
        # ... and the detail of an event reads what the frame leaves out
        rows = range(0, after.frame.height, max(1, after.frame.height // 20))
        assert [after.event(r) | {"user_key": None, "message_key": None, "branched": None}
                for r in rows] == [alone.event(r) | {"user_key": None, "message_key": None,
                                                     "branched": None} for r in rows]
        assert after.marks == alone.marks
        assert after.cost_text() == alone.cost_text()
        for name in ("cost", "kind", "call", "message", "user", "turn", "archived", "chars"):
            assert np.array_equal(getattr(after.log, name), getattr(alone.log, name)), name
        # the log's call ids read off the frame's column (one row per distinct id), not a
        # copy of the distinct ids; the same strings as a log that copies them
        ids = after.log.call_ids
        assert ids.values.len() == after.frame.height and len(ids.at) == len(ids.values.unique()
                                                                               .drop_nulls())
        copied = SessionLog.from_frame(session, after.frame).call_ids
        assert copied.at is None and copied.values.len() == len(ids.at)
        assert list(ids) == after.frame["call_id"].to_list() == list(copied)
        assert [ids[r] for r in rows] == [after.frame["call_id"][r] for r in rows]
        tree = TurnTree.build(alone.frame, alone.marks)
        assert first.tree.marked(after.marks).turn_marks == tree.turn_marks


def test_the_rest_of_a_session_changed_meanwhile_is_read_whole(demo, tmp_path):
    from tests.helpers import jsonl
    store = Store()
    rows = [{"session_id": "s", "seq": i, "kind": "USER" if i % 3 == 0 else "ASSISTANT",
             "text": f"event {i}"} for i in range(1, 10)]
    load(store, jsonl(tmp_path / "a.jsonl", rows))
    first = load_tree(store, "s")
    load(store, jsonl(tmp_path / "b.jsonl", [{**rows[0], "seq": 20, "text": "later"}]))
    after = load_session(store, "s", first=first)
    assert after.frame.equals(load_session(store, "s").frame) and after.frame.height == 10
    store.close()


def _rows_of_turn(frame, turn_no: int) -> list[int]:
    """Independently of the tree: a turn's top-level rows (frame order), each followed by
    the RESULT the display pairing puts under it."""
    rows = frame.select("turn_no", "pos", "display_call_pos").rows()
    row_of_pos = {pos: i for i, (_, pos, _) in enumerate(rows)}
    nested = {row_of_pos[c]: i for i, (_, _, c) in enumerate(rows) if c is not None}
    out = []
    for i, (t, _, c) in enumerate(rows):
        if t == turn_no and c is None:
            out += [i] + ([nested[i]] if i in nested else [])
    return out


def test_the_model_holds_the_turns_only_and_a_fetch_makes_exactly_its_rows(demo):
    session = _sessions(demo, 1)[0]
    first = load_tree(demo, session)
    model = TurnTreeModel()
    model.set_session(first.frame, first.marks, first.texts, first.tree)
    turns = [model.index(r, 0) for r in range(model.rowCount())]
    assert len(turns) == first.frame["turn_no"].n_unique() > 2
    assert model._node_of == {}   # no event row made
    assert all(model.rowCount(t) == 0 and model.canFetchMore(t) for t in turns)
    assert first.texts.reads == 0
    for n in (2, 0):   # two turns expanded, the others never built
        model.fetchMore(turns[n])
        assert not model.canFetchMore(turns[n])
    expected = _rows_of_turn(first.frame, int(first.tree.turn_no[2]))
    expected += _rows_of_turn(first.frame, int(first.tree.turn_no[0]))
    assert sorted(model._node_of) == sorted(expected)
    assert all(model.rowCount(t) == 0 for i, t in enumerate(turns) if i not in (0, 2))
    made = []

    def walk(parent):
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            made.append(model.frame_row(index))
            walk(index)
    walk(turns[2])
    assert made == _rows_of_turn(first.frame, int(first.tree.turn_no[2]))
    # the previews of the rows shown: one block read (the turn's rows are within it)
    texts = [model.index(r, 0, turns[2]).data() for r in range(model.rowCount(turns[2]))]
    assert all(texts) and first.texts.reads == 1


def test_the_rest_fills_the_tree_in_place(qtbot, demo):
    from widgets.session_panel import SessionPanel
    session = _sessions(demo, 1)[0]
    first = load_tree(demo, session)
    data, tree = _full(demo, session)
    data = type(data)(**{**data.__dict__, "tree": tree})
    assert any(data.marks)   # the demo's biggest session has findings to show
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.set_tree(first)
    model = panel.model
    turn = model.index(2, 0)
    model.fetchMore(turn)   # what the view asks when it shows the turn expanded
    panel.tree.expand(turn)
    row = model.index(0, 0, turn)
    node = row.internalPointer()
    panel.tree.setCurrentIndex(row)
    assert panel.detail.toPlainText().startswith("Reading")   # no cost source yet
    assert panel.finding_label.text() == "reading the marks…"
    assert not panel.next_button.isEnabled()
    panel.set_data(data)
    assert panel.tree.currentIndex().internalPointer() is node   # the same row, selected
    assert panel.tree.isExpanded(model.index(2, 0))
    assert f"cost {int(data.frame['cost'].sum()):,} tokens" in panel.title.text()
    assert "cost:" in panel.detail.toPlainText()   # the event's detail, now with its cost
    fresh = TurnTreeModel()
    fresh.set_session(data.frame, data.marks)
    for r in range(model.rowCount()):   # the marks, as a tree built from the full load
        assert (model.index(r, MARK).data() == fresh.index(r, MARK).data()), r
    assert panel.next_button.isEnabled()
    assert panel.next_finding() is not None


def test_the_rest_of_another_session_shows_its_tree_anew(demo):
    one, other = _sessions(demo, 2)
    first = load_tree(demo, one)
    data, tree = _full(demo, other)
    model = TurnTreeModel()
    model.set_session(first.frame, first.marks, first.texts, first.tree)
    model.fetchMore(model.index(0, 0))
    assert model.complete_session(data.frame, data.marks, data.texts, tree) is False
    assert model._node_of == {} and model.rowCount() == data.turns


def test_the_loader_delivers_the_tree_then_the_rest(qtbot, demo):
    from explorer.compaction.settings import CompactionSettings
    from explorer.model import CostSettings, Order
    from widgets.session_loader import SessionLoader
    jobs = JobPool()
    loader = SessionLoader(demo, jobs)
    said = []
    loader.tree_loaded.connect(lambda first: said.append(("tree", first)))
    loader.loaded.connect(lambda data: said.append(("rest", data)))
    session = _sessions(demo, 1)[0]
    with qtbot.waitSignal(loader.loaded, timeout=60_000):
        loader.load(session, Order.SEQ, CostSettings(), CompactionSettings())
    jobs.wait()
    assert [kind for kind, _ in said] == ["tree", "rest"]
    (_, first), (_, data) = said
    assert first.session_id == data.session_id == session
    assert data.tree is not None and data.frame.height == first.frame.height
    assert not loader.busy()


@pytest.fixture(scope="module")
def many_turns(tmp_path_factory):
    """One session of 2,500 turns (USER, CALL, its RESULT; every 7th RESULT one turn late)."""
    from tests.helpers import jsonl
    rows, seq = [], 0
    for t in range(2500):
        seq += 1
        rows.append({"session_id": "m", "seq": seq, "kind": "USER", "text": f"ask {t}"})
        seq += 1
        rows.append({"session_id": "m", "seq": seq, "kind": "CALL", "call_id": f"c{t}",
                     "tool": "bash", "text": f"run {t}"})
        if t % 7:
            seq += 1
            rows.append({"session_id": "m", "seq": seq, "kind": "RESULT", "call_id": f"c{t}",
                         "text": f"out {t}"})
        elif t:
            seq += 1   # the RESULT of the turn before, arriving in this one
            rows.append({"session_id": "m", "seq": seq, "kind": "RESULT",
                         "call_id": f"c{t - 1}x", "text": "late"})
    s = Store()
    load(s, jsonl(tmp_path_factory.mktemp("many") / "m.jsonl", rows))
    yield s
    s.close()


def test_the_turns_are_made_a_block_at_a_time(qtbot, many_turns):
    from widgets.session_panel import SessionPanel
    from widgets.turn_tree_model import TURN_BLOCK
    first = load_tree(many_turns, "m")
    model = TurnTreeModel()
    model.set_session(first.frame, first.marks, first.texts, first.tree)
    assert model.turn_count() == 2500 > TURN_BLOCK   # no preamble: the first event is a USER
    assert model.rowCount() == TURN_BLOCK and model.canFetchMore(QModelIndex())
    assert model.index(TURN_BLOCK - 1, 0).data().startswith(f"Turn {TURN_BLOCK} ")
    assert not model.index(TURN_BLOCK, 0).isValid()
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 2 * TURN_BLOCK
    # a row of a turn not made yet: the turns up to it are made, no more
    row = int(np.flatnonzero(first.frame["turn_no"].to_numpy() == 2400)[0])
    index = model.index_of_row(row)
    assert model.rowCount() == 2400 and model.frame_row(index) == row
    assert index.parent().data().startswith("Turn 2400 ")
    model.fetch_all()
    assert model.rowCount() == model.turn_count() and not model.canFetchMore(QModelIndex())
    # in a view: scrolled to the end of the turns made, the next block is made
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    panel.set_tree(first)
    assert panel.model.rowCount() == TURN_BLOCK
    panel.tree.scrollToBottom()
    qtbot.waitUntil(lambda: panel.model.rowCount() > TURN_BLOCK, timeout=5000)
    assert panel.model.turn_count() == 2500


def test_an_overlay_on_a_tree_of_turns_not_all_made(many_turns):
    from explorer.session.view_overlay import SyntheticItem, ViewOverlay
    data, tree = _full(many_turns, "m")
    model = TurnTreeModel()
    model.set_session(data.frame, data.marks, data.texts, tree)
    n = data.frame.height
    in_view = np.zeros(n, dtype=bool)
    in_view[n // 2:] = True   # the newest half: the turns not made yet hold most of it
    top = SyntheticItem(None, "SUMMARY", 300, "summary (added)")
    model.set_overlay(ViewOverlay("M1", 10_000, in_view, {}, (top,), {}))
    assert model.index(0, 0).data() == "SUMMARY — summary (added)"   # above the turns
    assert model.rowCount() == 1 + 1000
    assert model.index(1, 3).data() == "0/2 in view"   # turn 1: USER, CALL, none in view
    model.fetch_all()
    last = model.index(model.rowCount() - 1, 3).data()
    assert last.endswith("in view") and last.split("/")[0] == last.split("/")[1].split()[0]
    assert model.rowCount() == 1 + model.turn_count()


def test_a_big_sessions_comparison_is_computed_off_the_gui_thread(qtbot, demo, monkeypatch):
    import threading

    from explorer.session import preview
    from widgets import compare_model
    from widgets.compare_model import CompareModel
    data = load_session(demo, _sessions(demo, 1)[0])
    strategies = ["M0", "M1", "M2", "spring-tokens"]
    expected = preview.compare(data.log, 3000, strategies, data.settings)
    threads = []

    def compare(*args):
        threads.append(threading.current_thread())
        return preview.compare(*args)
    monkeypatch.setattr(compare_model, "compare", compare)
    jobs = JobPool()
    model = CompareModel(jobs=jobs)
    monkeypatch.setattr(compare_model, "BIG_LOG", data.log.n + 1)   # not big: here and now
    model.schedule(data.log, 3000, strategies, data.settings)
    model.refresh()
    assert model.rows() == expected and threads == [threading.main_thread()]
    monkeypatch.setattr(compare_model, "BIG_LOG", data.log.n)   # big: in a worker
    model.schedule(data.log, 3000, strategies, data.settings)
    with qtbot.waitSignal(model.refreshed, timeout=30_000):
        model.refresh()
        assert model.busy()
    assert model.rows() == expected and threads[-1] is not threading.main_thread()
    assert not model.busy()
    jobs.wait()


def test_the_previews_caches_built_ahead_change_no_figure(demo):
    from explorer.session import preview
    session = _sessions(demo, 1)[0]
    ahead, fresh = load_session(demo, session), load_session(demo, session)
    preview.prepare(ahead.log)
    corpus = ahead.log.__dict__["_one_session"]   # kept on the log, as the strategies keep it
    assert corpus._groups is not None and corpus._messages is not None
    assert "_one_session" not in fresh.log.__dict__
    for strategy in ("M0", "M1", "M2", "M3", "M4", "spring-tokens", "spring-summary:3",
                     "agentscope-tokens:4", "memory-window:8:2.0"):
        for budget in (150, 2000):
            a = preview.overlay(ahead.log, strategy, budget, ahead.settings)
            b = preview.overlay(fresh.log, strategy, budget, fresh.settings)
            assert np.array_equal(a.in_view, b.in_view) and a.metrics == b.metrics
            assert a.errors == b.errors and a.synthetic == b.synthetic


def _thinking_session(store) -> str:
    """A session with thinking blocks, from the first real Claude Code file that has them,
    loaded into ``store``."""
    from tests.conftest import CORPUS
    path = next(p for p in sorted((CORPUS / "claude-code").rglob("*.jsonl"))
                if '"thinking"' in p.read_text(encoding="utf-8"))
    load(store, path)
    return store.con.execute(
        "SELECT session_id FROM events JOIN event_details USING (eid) "
        "WHERE note = 'thinking' LIMIT 1").fetchall()[0][0]


def test_the_tree_read_first_labels_noted_events_as_the_full_load_does(store):
    """Thinking and harness notes (FORMAT.md ``note``) are in the tree from its first read:
    the tree keeps the notes it was built with when the rest arrives, so a tree read
    without them would never show them (a real Claude Code file with thinking blocks)."""
    session = _thinking_session(store)
    first = load_tree(store, session)
    full = load_session(store, session)
    assert first.tree.note is not None
    assert first.tree.note.to_list() == full.frame["note"].to_list()
    assert "thinking" in first.tree.note.to_list()


@pytest.mark.parametrize("tokenizer", [None, "o200k"])
def test_a_session_stored_out_of_append_order_reads_its_tree_in_it(tmp_path, tokenizer):
    """The tree's read in seq order takes the rows as stored and sorts them itself
    (explorer.tokens.session_events.tree_in_seq_order): a log written out of seq order, with
    seq ties broken by sub and by import position, and a noted USER opening no turn, reads
    as the window function of session_events.sql numbers it (a sample built from FORMAT.md:
    no real log is stored this far out of order)."""
    from explorer.model import CostSettings
    rows = [{"session_id": "s", "seq": seq, "sub": sub, "kind": kind, "text": text,
             **({"call_id": cid} if cid else {}), **({"note": note} if note else {}),
             **({"message_id": mid} if mid else {})}
            for seq, sub, kind, text, cid, note, mid in [
                (9, 0, "ASSISTANT", "done", None, None, "m3"),
                (5, 1, "RESULT", "out", "c1", None, None),
                (5, 0, "CALL", "ls", "c1", None, "m2"),
                (7, 0, "USER", "<system-reminder>", None, "harness", None),
                (1, 0, "USER", "hello", None, None, None),
                (8, 0, "USER", "again", None, None, None),
                (3, 0, "ASSISTANT", "a", None, None, "m1"),
                (3, 0, "ASSISTANT", "b", None, None, "m1")]]
    store = Store()
    try:
        load(store, jsonl(tmp_path / "s.jsonl", rows))
        settings = CostSettings(tokenizer=tokenizer)
        first = load_tree(store, "s", "seq", settings)
        full = load_session(store, "s", "seq", settings)
        assert first.frame.equals(full.frame.select(TREE_COLUMNS))
        assert first.frame["seq"].to_list() == [1, 3, 3, 5, 5, 7, 8, 9]
        assert first.frame["turn_no"].to_list() == [1, 1, 1, 1, 1, 1, 2, 2]
        # the rest, read as stored too (session_events_rest_scan.sql), put in the tree's order
        after = load_session(store, "s", "seq", settings, first=first)
        assert after.frame["text_chars"].to_list() == [len(r["text"]) for r in sorted(
            rows, key=lambda r: (r["seq"], r["sub"], rows.index(r)))]
        shared = [c for c in after.frame.columns if c in full.frame.columns]
        assert after.frame.select(shared).rows() == full.frame.select(shared).rows()
        assert after.frame["message_key"].rank("dense").to_list() == \
            full.frame["message_id"].rank("dense").to_list() == [None, 1, 1, 2, None, None,
                                                                None, 3]
        assert np.array_equal(after.log.message, full.log.message)
    finally:
        store.close()


def test_the_tree_holds_tools_and_notes_as_codes_read_a_block_at_a_time(store):
    """The tree frame's tools and notes (few distinct values) are Categoricals, a 32-bit
    code per event instead of a 16-byte view each, null or not (issue 13: 92 MB less in a
    session of 3M events); the scan is fetched a block at a time, each block made compact
    before the next: the same frame as read whole (a real Claude Code file with thinking)."""
    import polars as pl

    from explorer.model import KINDS, CostSettings
    from explorer.tokens.session_events import few_strings
    session = _thinking_session(store)
    frame = load_tree(store, session).frame
    assert frame["tool"].dtype == pl.Categorical and frame["note"].dtype == pl.Categorical
    # the windowed read (an order other than append order) makes them compact too
    unstable = load_tree(store, session, "ts-unstable").frame
    assert unstable["tool"].dtype == pl.Categorical and unstable["note"].dtype == pl.Categorical
    # positions and turn numbers in 32 bits, in either read (12 MB less each for 3M events)
    for read in (frame, unstable):
        assert {read[c].dtype for c in ("pos", "turn_no", "display_call_pos",
                                        "thinking_owner_pos")} == {pl.Int32}
        assert read["thinking_owner_pos"].is_not_null().any()
        # the kinds (a fixed few) as an Enum: a byte per event
        assert read["kind"].dtype == pl.Enum(KINDS) and read["kind"].to_physical().dtype == pl.UInt8
    stored_kind = dict(store.con.execute("SELECT eid, kind FROM events WHERE session_id = ?",
                                         [session]).fetchall())
    stored = {eid: (tool, note) for eid, tool, note in store.con.execute(
        "SELECT eid, tool, note FROM events JOIN event_details USING (eid) "
        "WHERE session_id = ?", [session]).fetchall()}
    assert list(zip(frame["tool"].to_list(), frame["note"].to_list())) == [
        stored[eid] for eid in frame["eid"].to_list()]
    assert {t for t, _ in stored.values() if t} and {n for _, n in stored.values() if n}
    assert frame["kind"].to_list() == [stored_kind[e] for e in frame["eid"].to_list()]

    settings = CostSettings()
    params = {"session_id": session, **settings.params()}
    seen: list[int] = []

    def each(block):
        seen.append(block.height)
        return few_strings(block)

    blocks = store.frame_in_blocks("session_events_tree_scan", settings.fragments(),
                                   each=each, rows=5, **params)
    whole = store.frame("session_events_tree_scan", settings.fragments(), **params)
    assert blocks.equals(few_strings(whole)) and blocks["tool"].dtype == pl.Categorical
    assert max(seen) <= 5 and sum(seen) == whole.height and len(seen) == -(-whole.height // 5)


@pytest.mark.parametrize("order", ["seq", "ts-unstable"])
def test_the_writers_tokens_and_turns_are_read_in_32_bits_when_they_fit(demo, order):
    """The rest read after the tree holds ``tokens`` and ``turn`` (BIGINT in the store) as
    Int32 when every value of the session fits (12 MB less each for 3M events), the same
    values by eid; a value beyond 32 bits keeps its column as read."""
    import polars as pl

    from explorer.tokens.session_events import COST_SOURCES, narrow_ints
    for session in _sessions(demo, 3):
        data = load_session(demo, session, order, first=load_tree(demo, session, order))
        frame = data.frame
        assert frame["tokens"].dtype == frame["turn"].dtype == pl.Int32
        stored = dict(demo.con.execute("SELECT eid, turn FROM events WHERE session_id = ?",
                                       [session]).fetchall())
        assert frame["turn"].to_list() == [stored[e] for e in frame["eid"].to_list()]
        assert frame["turn"].is_not_null().any()
        assert data.log.turn.dtype == np.int32
        # where each cost comes from, a fixed few: an Enum, a byte per event
        wide = load_session(demo, session, order).frame   # read whole, as the store says
        assert frame["cost_source"].dtype == pl.Enum(COST_SOURCES)
        assert frame["cost_source"].to_list() == wide["cost_source"].cast(pl.String).to_list()
    wide = pl.DataFrame({"tokens": [1, 2**31 - 1], "turn": [None, -(2**31) + 1]})
    narrow = narrow_ints(wide)
    assert narrow["tokens"].dtype == pl.Int64 and narrow["turn"].dtype == pl.Int32
    assert narrow.rows() == wide.rows()
