"""Test setup: Qt renders offscreen (set before any Qt import), shared fixtures."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The log file (explorer.log_setup) goes to a temporary folder, never the user's own.
os.environ["TURNSCOPE_STATE_DIR"] = __import__("tempfile").mkdtemp(prefix="turnscope-state-")
# So are the window's settings (widgets.saved_state): the user's are never read nor written.
os.environ["TURNSCOPE_CONFIG_DIR"] = __import__("tempfile").mkdtemp(prefix="turnscope-config-")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import shiboken6  # noqa: E402
from pytestqt.qtbot import QtBot  # noqa: E402

from explorer.store.db import Store  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


# pytest-qt holds the widgets a test adds only weakly, and closes them after the test. A
# window the test no longer names is then reachable through reference cycles alone, and the
# garbage collector could destroy it in the middle of a paint of pytest-qt's event
# processing (a segfault; widgets/gui_gc.py). So each added widget is also held strongly
# until pytest-qt has closed it (and deleted it, between events).
_add_widget = QtBot.addWidget


def _add_and_hold(self, widget, **kwargs):
    _add_widget(self, widget, **kwargs)
    self._request.node.__dict__.setdefault("held_widgets", []).append(widget)


QtBot.addWidget = QtBot.add_widget = _add_and_hold


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    # A widget the app itself deleted (a replaced window) is not closed again.
    if getattr(item, "qt_widgets", None):
        item.qt_widgets = [(ref, close) for ref, close in item.qt_widgets
                           if ref() is not None and shiboken6.isValid(ref())]
    try:
        return (yield)
    finally:
        item.__dict__.pop("held_widgets", None)
        # Once the GUI-thread collector is on (widgets/gui_gc.py), a test that runs no event
        # loop leaves its cycles to this check, on the main thread between tests.
        from PySide6.QtCore import QCoreApplication
        collector = getattr(QCoreApplication.instance(), "_turnscope_gc", None)
        if collector is not None:
            collector.check()


def pytest_sessionfinish(session, exitstatus):
    # The window tests turn automatic collection off (widgets/gui_gc.py): what is left is
    # collected while QApplication still exists, not by Python's exit in any order.
    __import__("gc").collect()


@pytest.fixture(scope="session")
def qapp(qapp):
    """pytest-qt's application, collecting cycles on the GUI thread only, as the app's own
    (widgets.app.application) does."""
    from widgets.gui_gc import collect_on_gui_thread
    collect_on_gui_thread(qapp)
    return qapp


@pytest.fixture
def store():
    """A fresh in-memory database."""
    s = Store()
    yield s
    s.close()


@pytest.fixture(scope="module")
def demo():
    """The demo corpus imported into one database, shared by a test module (a module may
    define its own ``demo`` instead)."""
    from explorer.cli.demo import demo_paths
    from tests.helpers import load
    s = Store()
    load(s, *demo_paths())
    yield s
    s.close()


@pytest.fixture
def write_lines(tmp_path):
    """Write text lines to a file under tmp_path and return its path."""
    def write(name: str, *lines: str) -> Path:
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    return write
