"""Tests of the desktop window: the workers and the main window (pytest-qt).

The session list's model is tested in test_sessions_model.py."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

import polars as pl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from explorer.audits.counts import COUNT_NAMES, FINDING_RULES, corpus_counts, session_counts
from explorer.cli.generate import generate
from explorer.ingest.imports import import_paths
from explorer.jobs import Cancelled
from explorer.model import Order
from explorer.store.db import StoreError
from explorer.tokens.session_events import session_events
from widgets.app import make_window, run
from widgets.sessions_model import COLUMNS
from widgets.tasks import import_task
from widgets.workers import JobPool, Worker

WAIT = 60_000
FAULTY = dict(sessions=50, turns=5, p_lost_call=0.05, p_retry=0.05, ts_align=0.3, text=True)
HTML_ID = "<b>bold</b>"


@pytest.fixture(scope="module")
def faulty_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "faulty.jsonl"
    generate(path, **FAULTY)
    return path


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """Large enough that importing it takes far longer than cancelling it."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    generate(path, sessions=3000, turns=5)
    return path


@pytest.fixture
def html_file(write_lines) -> Path:
    return write_lines(
        "html.jsonl",
        f'{{"session_id": "{HTML_ID}", "seq": 1, "kind": "USER", "text": "hi"}}',
        f'{{"session_id": "{HTML_ID}", "seq": 2, "kind": "CALL", "call_id": "c1", "text": "ls"}}',
        "this line is not JSON",
    )


@pytest.fixture
def audited(store, faulty_file) -> pl.DataFrame:
    import_paths(store, [faulty_file])
    return session_counts(store)


def loaded_window(qtbot, paths, **kwargs):
    """A window that has imported ``paths`` through its worker and shows the audit."""
    window = make_window([str(p) for p in paths], **kwargs)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    return window


def strip_counts(window) -> dict[str, int]:
    """The numbers the totals strip shows, read back from its text."""
    text = window.totals.text()
    return {name: int(re.search(rf"\b{name.replace('_', ' ')} ([\d,]+)", text)[1].replace(",", ""))
            for name in COUNT_NAMES}


def pool_is_idle(pool: JobPool):
    def idle() -> bool:
        return not pool.is_busy()
    return idle


# -- workers --------------------------------------------------------------------------------
def _answer(progress, should_stop):
    progress(1, 1)
    return 42


def _boom(progress, should_stop):
    raise ValueError("boom")


def _wait_for_stop(progress, should_stop):
    progress(1, 2)
    while not should_stop():
        pass
    raise Cancelled("stopped")


def test_worker_outcomes(qtbot):
    pool = JobPool()
    worker = Worker(_answer)
    with qtbot.waitSignal(worker.signals.finished, timeout=WAIT) as finished, \
            qtbot.waitSignal(worker.signals.progressed, timeout=WAIT) as progressed:
        pool.start(worker)
    assert progressed.args == [1, 1] and finished.args == [42]
    worker = Worker(_boom)
    with qtbot.waitSignal(worker.signals.failed, timeout=WAIT) as blocker:
        pool.start(worker)
    assert [str(e) for e in blocker.args] == ["boom"]
    worker = Worker(_wait_for_stop)
    with qtbot.waitSignal(worker.signals.progressed, timeout=WAIT):
        pool.start(worker)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=WAIT):
        worker.cancel()
    qtbot.waitUntil(pool_is_idle(pool), timeout=WAIT)


def test_a_worker_cancelled_before_it_runs_imports_nothing(qtbot, store, big_file):
    pool = JobPool()
    worker = Worker(partial(import_task, store, [str(big_file)]))
    worker.cancel()
    with qtbot.waitSignal(worker.signals.cancelled, timeout=WAIT):
        pool.start(worker)
    assert pool.wait(WAIT)
    assert corpus_counts(store)["events"] == 0


# -- the main window ------------------------------------------------------------------------
def test_window_loads_through_the_worker_and_shows_the_audit(qtbot, store, faulty_file, tmp_path):
    missing = tmp_path / "missing.jsonl"
    window = loaded_window(qtbot, [faulty_file, missing])
    import_paths(store, [faulty_file])
    expected = corpus_counts(store)
    assert window.windowTitle() == "Turnscope"
    assert window.model.rowCount() == expected["sessions"] == 50
    assert strip_counts(window) == expected
    assert expected["orphan_results"] > 0 and expected["duplicates"] > 0
    # the missing file is reported, as plain text, without blocking the window
    assert "1 file(s) failed" in window.statusBar().currentMessage()
    assert window.error_box is not None and str(missing) in window.error_box.text()
    assert window.error_box.textFormat() == Qt.TextFormat.PlainText
    window.error_box.close()
    qtbot.waitUntil(pool_is_idle(window.jobs), timeout=WAIT)
    assert window.progress.isHidden() and window.cancel_button.isHidden()

    with qtbot.waitSignal(window.audit_shown, timeout=WAIT) as blocker:
        window.order_box.setCurrentIndex(window.order_box.findData("ts-unstable"))
    assert blocker.args == [Order.TS_UNSTABLE]
    unstable = corpus_counts(store, Order.TS_UNSTABLE)
    assert strip_counts(window) == unstable
    assert strip_counts(window)["tie_inversions"] == unstable["tie_inversions"] > 0


def test_filter_box_and_only_findings_reduce_the_rows(qtbot, faulty_file, audited):
    window = loaded_window(qtbot, [faulty_file])
    window.filter_edit.setText("S00004")  # any case
    ids = audited["session_id"]
    assert window.model.rowCount() == ids.str.contains("s00004").sum() == 10
    shown = {window.model.index(r, 0).data() for r in range(window.model.rowCount())}
    assert shown == set(ids.filter(ids.str.contains("s00004")))
    window.filter_edit.clear()
    assert window.model.rowCount() == 50
    with_findings = audited.filter(pl.any_horizontal([pl.col(c) > 0 for c in FINDING_RULES]))
    window.only_findings_box.setChecked(True)
    assert 0 < window.model.rowCount() == with_findings.height < 50
    window.filter_edit.setText("S00004")  # any case
    assert window.model.rowCount() == with_findings["session_id"].str.contains("s00004").sum()
    assert "of 50 sessions" in window.rows_label.text()
    # sorting through the header sorts the model; the filter still holds
    window.table.sortByColumn(COLUMNS.index("orphan_results"), Qt.SortOrder.DescendingOrder)
    values = [window.model.index(r, COLUMNS.index("orphan_results")).data(Qt.ItemDataRole.UserRole)
              for r in range(window.model.rowCount())]
    assert values == sorted(values, reverse=True)


def test_html_session_id_shows_literally_in_the_window(qtbot, html_file):
    window = loaded_window(qtbot, [html_file])
    assert window.model.index(0, 0).data() == HTML_ID
    assert "1 lines rejected" in window.statusBar().currentMessage()
    assert window.error_box is None


def test_cancelling_an_import_leaves_the_window_usable(qtbot, big_file, faulty_file):
    window = loaded_window(qtbot, [])
    assert window.model.rowCount() == 0
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        assert window.import_paths([str(big_file)]) is not None
        assert window.cancel_button.isVisibleTo(window)
        window.cancel_button.click()
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    # Cancelling lands long before a 3000-session import can end; either way it is consistent.
    assert ended.args[0] in ("cancelled", "finished")
    sessions = corpus_counts(window.store)["sessions"]
    assert window.model.rowCount() == sessions == (0 if ended.args[0] == "cancelled" else 3000)
    if ended.args[0] == "cancelled":
        assert "cancelled" in window.statusBar().currentMessage()
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.import_paths([str(faulty_file)])
    assert ended.args == ["finished"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert window.model.rowCount() == sessions + 50


def test_closing_during_an_import_cancels_it(qapp, big_file):
    window = make_window([str(big_file)])
    assert window.jobs.is_busy()
    window.close()
    assert window.jobs.wait(0)  # every worker has returned


def test_an_unusable_database_is_reported(qapp, tmp_path, monkeypatch):
    bad = tmp_path / "bad.duckdb"
    bad.write_text("not a database\n")
    with pytest.raises(StoreError):
        make_window([], db=str(bad))
    shown: list[str] = []

    def fake_exec(box: QMessageBox) -> int:
        shown.append(box.text())
        return 0
    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    assert run([], db=str(bad)) == 2
    assert shown and str(bad) in shown[0]


def test_selecting_a_session_shows_its_turn_tree(qtbot, faulty_file):
    window = loaded_window(qtbot, [faulty_file])
    session = window.model.index(3, 0).data()
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT) as shown:
        window.table.setCurrentIndex(window.model.index(3, 0))
    assert shown.args == [session]
    tree = window.session_panel.model
    frame = session_events(window.store, session, Order.SEQ)
    assert tree.rowCount() == frame["turn_no"].n_unique()
    assert window.session_panel.title.text().startswith(f"{session}: {frame.height:,} events")
