"""The assembled window: cancelled imports, the screenshot command, CJK text, drops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDropEvent, QFont, QImage, QPainter
from PySide6.QtWidgets import QDialog

from explorer.cli.demo import demo_paths
from explorer.cli.generate import generate
from explorer.cli.main import main
from explorer.store.db import Store, data_version
from widgets.app import make_window
from widgets.cost_plot import value_of

WAIT = 120_000
TABLES = ("events", "event_details", "rejected", "duplicates", "conflicts", "files")


def snapshot(store: Store) -> dict:
    """Every row of the imported data, table by table, and the data version."""
    return {t: sorted(map(repr, store.con.execute(f"SELECT * FROM {t}").fetchall()))
            for t in TABLES} | {"version": data_version(store)}


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    generate(path, sessions=4000, turns=6)
    return path


def test_a_cancelled_import_leaves_the_database_as_it_was(qtbot, tmp_path, big_file):
    db = tmp_path / "kept.duckdb"
    window = make_window([str(p) for p in demo_paths()], db=str(db))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    before = snapshot(window.store)
    sessions = window.model.rowCount()
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        worker = window.import_paths([str(big_file)])
        with qtbot.waitSignal(worker.signals.progressed, timeout=WAIT):
            pass  # the import is under way: its first block was read
        window.cancel_button.click()
    assert ended.args == ["cancelled"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert snapshot(window.store) == before
    assert window.model.rowCount() == sessions
    window.close()
    reopened = Store(db)  # and the file holds the same after closing
    assert snapshot(reopened) == before
    reopened.close()


def test_dropping_files_imports_them(qtbot, tmp_path):
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert window.model.rowCount() == 0
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in demo_paths()])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.dropEvent(drop)
    assert ended.args == ["finished"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert window.model.rowCount() == len(window.store.run("session_names")) > 0
    assert [Path(p).name for p in window.recent.paths()[:3]] == sorted(
        (p.name for p in demo_paths()), key=[p.name for p in demo_paths()].index)


def _glyphs(text: str) -> QImage:
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(QFont(QFont().family(), 20))
    painter.setPen(QColor("black"))
    painter.drawText(4, 30, text)
    painter.end()
    return image


def test_cjk_text_has_real_glyphs(qapp):
    """With a CJK font installed, two different ideographs draw differently (missing glyphs
    would all be the same empty box) and differ from a code point no font has."""
    first, second, missing = _glyphs("中"), _glyphs("文"), _glyphs("\U000f0000")
    assert first != second
    assert first != missing and second != missing


def test_screenshot_command_renders_the_window(tmp_path, capsys):
    out = tmp_path / "window.png"
    status = main(["screenshot", str(out), "--demo", "--session", "k0002",
                   "--strategy", "spring-events:20", "--budget", "1500", "--size", "1400x900"])
    assert status == 0, capsys.readouterr().err
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    assert "session k0002" in capsys.readouterr().err


@pytest.mark.parametrize("big", [False, True])
def test_screenshot_shows_the_comparison_at_the_budget_asked(qapp, monkeypatch, tmp_path, big):
    """The strategy table is debounced in the window, and computed in the background for a
    big session (``big``: every session counted as one): the screenshot must not catch it
    stale (a session of 3M events showed the table of the budget before)."""
    from explorer.compaction import view
    from widgets import compare_model, screenshot
    from widgets.main_window import MainWindow

    monkeypatch.setattr(compare_model, "DELAY_MS", 600_000)  # as if the machine were slow
    if big:
        monkeypatch.setattr(compare_model, "BIG_LOG", 1)
    shown = {}
    real_grab = MainWindow.grab

    def grab(window):
        shown["rows"] = window.workspace.preview.compare.rows()
        shown["log"] = window.workspace.data.log
        return real_grab(window)

    monkeypatch.setattr(MainWindow, "grab", grab)
    # No --session: the session the window opened on, already shown when the preview is set.
    screenshot.take(str(tmp_path / "w.png"), [str(p) for p in demo_paths()], session=None,
                    strategy="M1", budget=20_000)
    assert shown["rows"]
    for row in shown["rows"]:
        assert row["cost"] == view(shown["log"], row["strategy"], 20_000)[1]["cost"]


def test_screenshot_command_reports_bad_arguments(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["screenshot", str(out), "--strategy", "M9"]) == 2
    assert "unknown strategy" in capsys.readouterr().err
    assert main(["screenshot", str(out), "--size", "big"]) == 2
    assert "--size" in capsys.readouterr().err
    assert main(["screenshot", str(out), "--demo", "--session", "no such"]) == 2
    assert "no such session" in capsys.readouterr().err
    assert not out.exists()


# -- the demo, as a new user meets it -----------------------------------------------------------
@pytest.fixture
def demo_window(qtbot):
    window = make_window([str(p) for p in demo_paths()])
    window.resize(1600, 1000)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    qtbot.waitUntil(lambda: window.findings.model.rowCount() > 0, timeout=WAIT)
    return window


def out_of_view_rows(window) -> set[int]:
    """The frame rows the tree shows as out of the view (read back from the tree)."""
    model = window.session_panel.model
    model.fetch_all()
    out = set()
    for t in range(model.rowCount()):
        stack = [model.index(t, 0)]
        while stack:
            parent = stack.pop()
            for r in range(model.rowCount(parent)):
                child = model.index(r, 0, parent)
                stack.append(child)
                row = model.frame_row(child)
                if row is not None and model.index(r, 3, parent).data() == "out":
                    out.add(row)
    return out


def test_moving_the_slider_greys_exactly_what_the_engine_drops(qtbot, demo_window):
    from explorer.compaction import Strategy, view
    from explorer.compaction import window as decide
    from explorer.compaction.window import in_view

    window = demo_window
    session = "k0002"
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        assert window.select_session(session)
    log = window.workspace.data.log
    slider = window.preview.budget_control.slider
    for strategy in ("M1", "M2", "spring-events:20", "agentscope:50:20"):
        window.preview.set_strategy(strategy)
        for position in (slider.maximum(), slider.maximum() // 2, slider.maximum() // 4, 0):
            slider.setValue(position)  # as a drag does
            budget = window.preview.budget()
            settings = window.preview.settings()
            keep = in_view(log, decide(log, Strategy.parse(strategy), budget, settings))
            assert out_of_view_rows(window) == set(np.flatnonzero(~keep).tolist())
            _, metrics = view(log, strategy, budget, settings)
            assert window.preview.strip.text().startswith(f"{metrics['cost']:,} / {budget:,}")
            assert window.workspace.cost_plot.budget() == budget


def test_the_turn_aware_strategy_goes_over_budget_as_the_slider_drops(qtbot, demo_window):
    window = demo_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session("k0001")
    window.preview.set_strategy("M1")
    over = []
    for budget in (1_000_000, 20_000, 1_000):
        window.preview.set_budget(budget)
        over.append(window.preview.current_overlay().metrics["over"])
    assert over[0] is False and over[-1] is True
    assert "over budget" in window.preview.strip.text()


def selected_event(window) -> tuple:
    row = window.session_panel.model.frame_row(window.session_panel.tree.currentIndex())
    event = window.workspace.data.frame.row(row, named=True)
    return event["seq"], event["sub"], event["kind"]


def test_a_key_collision_finding_jumps_to_its_events(qtbot, demo_window):
    window = demo_window
    findings = window.findings
    findings.set_rule("turn_collisions")
    assert findings.model.rowCount() == findings.rule_counts()["turn_collisions"] > 0
    qtbot.waitUntil(lambda: window.workspace.data is not None, timeout=WAIT)  # the first look
    rows = range(findings.model.rowCount())
    other = next(r for r in rows
                 if findings.model.finding(r)["session_id"] != window.workspace.session_id)
    finding = findings.model.finding(other)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        findings.view.activated.emit(findings.model.index(other, 0))  # double-click or Enter
    assert window.sessions.selected_session() == finding["session_id"]
    assert window.main_tabs.currentWidget() is window.workspace
    first = finding["events"][0]
    assert selected_event(window) == (first["seq"], first["sub"], first["kind"])
    # every event of the finding is selected (the first is the current one, in the detail)
    assert len(finding["events"]) >= 2
    frame = window.workspace.data.frame
    selected = {(frame["seq"][r], frame["sub"][r], frame["kind"][r])
                for r in window.session_panel.selected_rows()}
    assert selected == {(e["seq"], e["sub"], e["kind"]) for e in finding["events"]}
    # A second finding of the session shown: selected at once, nothing reloaded.
    same = [r for r in rows if r != other
            and findings.model.finding(r)["session_id"] == finding["session_id"]]
    assert same  # the demo's collapsed sessions collide in several turns
    second = findings.model.finding(same[-1])["events"][0]
    findings.view.activated.emit(findings.model.index(same[-1], 0))
    assert selected_event(window) == (second["seq"], second["sub"], second["kind"])


def test_f3_steps_through_the_findings_of_the_session(qtbot, demo_window):
    window = demo_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session("k0003")
    marks = window.workspace.data.marks
    flagged = [i for i, m in enumerate(marks) if m]
    assert flagged
    seen = [window.session_panel.next_finding() for _ in flagged]
    assert sorted(seen) == flagged
    # Without the window's hook (which goes on to the next session, test_keyboard.py) it
    # wraps around.
    across, window.session_panel.across = window.session_panel.across, None
    try:
        assert window.session_panel.next_finding() == seen[0]
        assert window.session_panel.previous_finding() == seen[-1]
    finally:
        window.session_panel.across = across


def test_the_cost_plot_line_moves_the_slider(qtbot, demo_window):
    window = demo_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session("k0001")
    plot = window.workspace.cost_plot
    plot.line.setValue(value_of(12_345))
    plot.line.sigDragged.emit(plot.line)
    assert abs(window.preview.budget() - 12_345) <= 12_345 * 0.01
    assert window.preview.current_overlay().budget == window.preview.budget()


def test_a_long_session_title_does_not_widen_the_window(tmp_path):
    """A Claude Code transcript: a uuid session key plus its reported usage in the title."""
    from tests.conftest import CORPUS
    from widgets import screenshot

    out = tmp_path / "claude.png"
    path = CORPUS / "claude-code" / "jnarowski-agentcmd__full-session.jsonl"
    screenshot.take(str(out), [str(path)], strategy="recorded", size="1300x850")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1300, 850)


def test_the_import_report_is_one_click_away(qtbot, demo_window):
    """After an import the status bar's Details… (and File → Import report…) shows how
    every record of each file was counted: the report's own figures, a total row."""
    assert not demo_window.report_button.isHidden()
    demo_window.report_button.click()
    dialog = next(w for w in demo_window.findChildren(QDialog) if w.isVisible()
                  and hasattr(w, "table"))
    model = dialog.table.model()
    report = demo_window.last_report
    assert model.rowCount() == len(report.files) + 1
    from widgets.import_report_dialog import COLUMNS
    events = [key for key, _, _ in COLUMNS].index("events")
    shown = [model.index(r, events).data(Qt.ItemDataRole.UserRole) for r in range(model.rowCount())]
    assert shown == [f.events for f in report.files] + [report.totals()["events"]]
    dialog.close()


def test_a_file_a_killed_import_left_unfinished_is_named_and_imported_again(qtbot, tmp_path):
    """The mark import_paths leaves while a file's transaction runs (here left as a killed
    process leaves it): the window names the file and its Import again button imports it."""
    from explorer.store import durability
    db = tmp_path / "kept.duckdb"
    lost = str(demo_paths()[0])
    store = Store(db)
    durability.mark_started(store, [lost])
    store.close()
    window = make_window([], db=str(db))
    qtbot.addWidget(window)
    box = window.unfinished_box
    assert lost in box.text() and "did not finish importing" in box.text()
    again = next(b for b in box.buttons() if b.text() == "Import again")
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        again.click()
    assert ended.args == ["finished"]
    assert [f.path for f in window.last_report.files] == [lost]
    assert durability.unfinished_imports(window.store) == []
    window.close()


def test_every_broken_file_of_the_suite_in_the_window(qtbot):
    """sample_data/broken/ opened in the window as a user would: each file is either read
    (what could be, the rest in the rejected lines) or named with its reason; no crash."""
    from explorer.ingest.imports import import_paths
    from explorer.store.db import Store as _Store
    folder = Path(__file__).resolve().parents[1] / "sample_data" / "broken"
    files = sorted(str(p) for p in folder.iterdir() if p.name != "README.md")
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.import_paths(files)
    assert ended.args == ["finished"]
    report = window.last_report
    named = sorted([f.path for f in report.files] + [e.path for e in report.errors])
    assert named == files
    expected = import_paths(_Store(), files)            # the same as headless
    assert [(f.path, f.records, f.rejected, f.events) for f in report.files] == \
        [(f.path, f.records, f.rejected, f.events) for f in expected.files]
    dialogs = [w for w in window.findChildren(QDialog) if w.isVisible()]
    assert dialogs   # the files that could not be read are listed in a message
    window.close()


def test_open_folder_imports_an_openhands_event_folder_as_one_file(qtbot, monkeypatch):
    """File → Open Folder… on OpenHands V1's folder of event-*.json files (real, corpus):
    one imported file, the folder, one session; the shared keys count stays 0."""
    from explorer.audits import counts as audits
    from tests.conftest import CORPUS
    from widgets import main_window

    folder = CORPUS / "openhands-v1" / "OpenHands-OpenHands-CLI__cli447_hi_followup_iterative_case_a"
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    monkeypatch.setattr(main_window.QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(folder)))
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.open_folder()
    assert ended.args == ["finished"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert [f.path for f in window.last_report.files] == [str(folder)]
    assert window.model.rowCount() == 1
    assert audits.corpus_counts(window.store)["shared_keys"] == 0
