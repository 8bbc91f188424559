"""The window remembers what the user left (widgets.saved_state), fits its screen, offers the
last database in File → Open Recent; Qt starts quietly (widgets.qt_environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import (
    QByteArray,
    QMessageLogContext,
    QPoint,
    QRect,
    QSettings,
    Qt,
    QtMsgType,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGraphicsView,
    QLineEdit,
    QMenu,
    QWidget,
)

from explorer.cli.demo import demo_paths
from explorer.cli.main import _gui_parser
from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from widgets import qt_environment, saved_state
from widgets.app import WindowHost, make_window
from widgets.qt_environment import use_utf8_locale
from widgets.recent_files import RecentFiles
from widgets.saved_state import app_settings, fit_to_screen

from .test_pane_shares import drag

WAIT = 60_000
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "saved.ini"), QSettings.Format.IniFormat)


def opened(qtbot, settings=None, order=Order.SEQ, paths=(), db=None):
    window = make_window([str(p) for p in paths], db, order, settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    return window


def test_tests_read_and_write_a_temporary_settings_file():
    folder = Path(os.environ[saved_state.CONFIG_DIR])
    assert Path(app_settings().fileName()).parent == folder
    assert not folder.is_relative_to(Path.home())


def test_what_the_user_left_is_shown_again(qtbot, settings):
    window = opened(qtbot, settings, order=None)
    window.resize(790, 560)  # within the offscreen screen (800x600)
    window.show()
    qtbot.waitExposed(window)
    drag(window.workspace.splitter, -60)   # the user's widths (else shared anew)
    window.table.horizontalHeader().setSortIndicator(2, Qt.SortOrder.DescendingOrder)
    preview = window.preview
    preview.set_settings(CompactionSettings(summary_cost=123, evict=True, evict_excluded=("x",)))
    preview.set_strategy("agentscope:40:10")
    preview.set_budget(12_345)
    preview.set_cost_settings(CostSettings(2.0, 3.5))
    window.state.set_order(Order.TS)
    window.close()

    again = opened(qtbot, settings, order=None)
    assert again.size().toTuple() == (790, 560)
    assert again.workspace.splitter.saveState() == window.workspace.splitter.saveState()
    header = again.table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (
        2, Qt.SortOrder.DescendingOrder)
    assert again.preview.strategy() == "agentscope:40:10"
    assert again.preview.settings() == CompactionSettings(summary_cost=123, evict=True,
                                                          evict_excluded=("x",))
    assert again.preview.budget() == 12_345
    assert again.preview.cost_settings() == CostSettings(2.0, 3.5)
    assert again.state.cost_settings == CostSettings(2.0, 3.5)  # the audit follows it
    assert again.order == Order.TS and again.preview.order() == Order.TS
    again.close()
    # An order given on the command line wins over the saved one.
    told = opened(qtbot, settings, order=Order.SEQ)
    assert told.order == Order.SEQ and told.preview.strategy() == "agentscope:40:10"


def test_without_settings_nothing_is_restored_nor_saved(qtbot, settings):
    settings.setValue(saved_state.STRATEGY, "M3")
    window = opened(qtbot)
    assert window.preview.strategy() == "M1" and window.size().toTuple() == (1600, 1000)
    window.preview.set_strategy("M4")
    window.close()
    assert settings.value(saved_state.STRATEGY) == "M3"


GARBAGE = {
    saved_state.GEOMETRY: "not bytes", saved_state.WINDOW_STATE: QByteArray(b"\x00\xffjunk"),
    "window/splitter": 17, "workspace/splitter": QByteArray(b"x" * 40),
    "workspace/right_splitter": [1, 2], saved_state.SORT_COLUMN: "no such column",
    saved_state.SORT_ORDER: 3, saved_state.STRATEGY: 42, saved_state.SETTINGS: "{not json",
    saved_state.BUDGET: "lots", saved_state.ORDER: "sideways", saved_state.TOKENIZER: "gpt-9",
    saved_state.CJK_RATIO: "nan", saved_state.OTHER_RATIO: [4],
}


@pytest.mark.parametrize("variant", ["garbage", "old"])
def test_bad_or_old_saved_values_leave_the_defaults(qtbot, settings, variant):
    if variant == "garbage":
        values = GARBAGE
    else:  # well-formed, but from a version with other strategies, fields and ranges
        values = {saved_state.STRATEGY: "M9:3", saved_state.SORT_COLUMN: "sessions",
                  saved_state.SORT_ORDER: "descending", saved_state.BUDGET: "-5",
                  saved_state.SETTINGS: '{"summary_cost": 10000000000, "evict": "yes", '
                                        '"prune_excluded": [1], "gone": 1}',
                  saved_state.TOKENIZER: "", saved_state.CJK_RATIO: "inf",
                  saved_state.OTHER_RATIO: "4"}
    for key, value in values.items():
        settings.setValue(key, value)
    settings.sync()
    window = opened(qtbot, settings, order=None, paths=demo_paths())
    assert window.preview.strategy() == "M1"
    assert window.preview.settings() == CompactionSettings()
    assert window.preview.cost_settings() == CostSettings()
    assert window.preview.budget() == 4000 and window.order == Order.SEQ
    assert window.table.horizontalHeader().sortIndicatorSection() == 0
    assert window.model.rowCount() > 0
    window.close()  # and saving over the garbage works
    assert settings.value(saved_state.STRATEGY) == "M1"


def test_a_window_too_large_for_its_screen_is_fitted_onto_it(qtbot):
    window = opened(qtbot)
    for room in (QRect(0, 0, 1280, 800), QRect(0, 0, 1024, 768), QRect(200, 30, 1024, 700)):
        window.resize(1600, 1000)
        fit_to_screen(window, room)
        assert room.contains(QRect(window.pos(), window.size())), room
    window.resize(900, 600)
    fit_to_screen(window, QRect(0, 0, 1280, 800))
    assert window.size().toTuple() == (900, 600)  # a window that fits is left as it is


CONTROLS = (QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QAbstractSlider,
            QAbstractItemView, QGraphicsView)


def _hidden_parts(window) -> list[str]:
    """The right pane's controls that cannot be scrolled wholly into view (or, when larger
    than the pane, so as to fill it), named by class and tooltip."""
    pane, inner = window.workspace.right_pane, window.workspace.right_splitter
    viewport = pane.viewport()
    clip = QRect(viewport.mapTo(window, QPoint(0, 0)), viewport.size()).intersected(window.rect())
    hidden = []
    for control in inner.findChildren(QWidget):
        if not isinstance(control, CONTROLS) or not control.isVisibleTo(window):
            continue
        if _part_of_a_control(control, inner):  # a spin box's line edit, a view's scroll bar
            continue
        at = control.mapTo(inner, QPoint(0, 0))
        pane.horizontalScrollBar().setValue(at.x())  # as far as the pane lets it
        pane.verticalScrollBar().setValue(at.y())
        QApplication.processEvents()
        rect = QRect(control.mapTo(window, QPoint(0, 0)), control.size())
        seen = rect.intersected(clip)
        if (seen.width() < min(rect.width(), clip.width())
                or seen.height() < min(rect.height(), clip.height())):
            hidden.append(f"{type(control).__name__} {control.toolTip()[:40]!r}")
    return hidden


def _part_of_a_control(widget, top) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, CONTROLS):
            return True
        parent = parent.parentWidget()
    return False


def test_every_control_of_the_right_pane_can_be_scrolled_into_view_at_1024x768(qtbot):
    window = opened(qtbot, paths=demo_paths())
    fit_to_screen(window, QRect(0, 0, 1024, 768))
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session("s000012")
    assert window.width() <= 1024 and window.height() <= 768
    assert window.workspace.right_pane.verticalScrollBar().maximum() > 0  # it does scroll
    assert _hidden_parts(window) == []
    window.preview.picker.transforms_button.setChecked(True)  # the folded settings too
    inner, bar = window.workspace.right_splitter, window.workspace.right_pane.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() >= inner.minimumSizeHint().height()
                    - window.workspace.right_pane.viewport().height() > 0)
    assert _hidden_parts(window) == []


def test_the_last_database_is_offered_in_open_recent(qtbot, tmp_path, settings):
    db = tmp_path / "kept.duckdb"
    window = opened(qtbot, settings, db=str(db))
    entry = window.recent.menu.actions()[0]
    assert entry.text() == "Database  kept.duckdb" and entry.isEnabled()
    with qtbot.waitSignal(window.database_requested) as picked:
        entry.trigger()
    assert picked.args == [str(db.resolve())]
    window.close()
    recent = RecentFiles(QMenu(), settings)
    assert recent.database() == str(db.resolve())
    recent.clear()
    assert recent.database() is None and len(recent.menu.actions()) == 1  # "Clear" alone


def test_picking_the_database_opens_it_in_place_of_the_window(qtbot, tmp_path, settings):
    first, second, bad = tmp_path / "a.duckdb", tmp_path / "b.duckdb", tmp_path / "bad.duckdb"
    bad.write_text("not a database")
    window = opened(qtbot, settings, db=str(first))
    host = WindowHost(window, settings)
    assert host.open_database(str(first)) is None and host.window is window  # open already
    assert host.open_database(str(bad)) is None and host.window is window
    assert "Cannot open the database" in window.error_box.text()
    new = host.open_database(str(second))
    qtbot.addWidget(new)
    assert host.window is new and new.store.path == second and window._closed


def test_the_window_order_defaults_to_the_saved_one():
    assert _gui_parser().parse_args([]).order is None
    assert _gui_parser().parse_args(["--order", "ts"]).order == "ts"


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LC_ALL": "C"}, {"LC_ALL": "C.UTF-8"}),
    ({"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, {"LC_ALL": "C.UTF-8", "LANG": "en_US.UTF-8"}),
    ({}, {"LC_CTYPE": "C.UTF-8"}),
    ({"LC_ALL": "", "LANG": "C"}, {"LC_ALL": "", "LANG": "C", "LC_CTYPE": "C.UTF-8"}),
    ({"LANG": "de_DE.UTF-8"}, {"LANG": "de_DE.UTF-8"}),
    ({"LC_CTYPE": "en_GB.ISO-8859-1"}, {"LC_CTYPE": "en_GB.ISO-8859-1"}),
])
def test_a_c_locale_is_made_utf8_before_qt_starts(environ, expected):
    use_utf8_locale(environ)
    assert environ == expected


QUIET = """
import sys
from PySide6.QtCore import qWarning
from widgets.app import application
from PySide6.QtWidgets import QWidget
application()
w = QWidget(); w.show()
w.setMinimumSize(120, 120)  # the offscreen plugin cannot pass this on, and says so
qWarning("another warning")
"""


def test_qt_starts_under_lc_all_c_saying_only_what_matters():
    env = {**os.environ, "LC_ALL": "C", "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", QUIET], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "another warning" in done.stderr  # other warnings still show
    assert "propagateSizeHints" not in done.stderr
    assert "locale" not in done.stderr.lower()


def test_the_message_filter_passes_the_rest_to_the_handler_before_it(monkeypatch):
    got = []
    monkeypatch.setattr(qt_environment, "_previous", lambda mode, context, text: got.append(text))
    for text in ("This plugin does not support propagateSizeHints()", "a real warning"):
        qt_environment._on_message(QtMsgType.QtWarningMsg, QMessageLogContext(), text)
    assert got == ["a real warning"]
