"""Python's cyclic garbage collector, run by a GUI-thread timer only.

Left automatic, a collection starts wherever Python happens to allocate: inside a paint
(pyqtgraph's axes measure their labels in Python), or on a job's pool thread. A closed
window reachable only through reference cycles was then destroyed in the middle of another
window's paint ("QPaintDevice: Cannot destroy paint device that is being painted", then a
segfault in ``QPainter::restore``, seen in CI). The automatic collector is turned off and
the GUI thread collects between events instead, with Python's own thresholds
(``pyqtgraph.util.garbage_collector``, which pyqtgraph provides for this). Reference
counting, which frees almost everything, is untouched; windows the app is done with are
deleted with ``deleteLater`` (widgets.app) rather than left to the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from pyqtgraph.util.garbage_collector import GarbageCollector
from PySide6.QtCore import QCoreApplication

#: Seconds between the GUI thread's checks whether a collection is due.
INTERVAL_S = 1.0


def collect_on_gui_thread(app: QCoreApplication) -> GarbageCollector:
    """Install the GUI-thread collector for ``app`` once; the one installed."""
    collector = getattr(app, "_turnscope_gc", None)
    if collector is None:
        collector = GarbageCollector(interval=INTERVAL_S)
        collector.timer.setParent(app)   # stops with the application
        # What is left is collected while the application still runs, not by Python's
        # exit in whatever order (Qt objects destroyed after QApplication).
        app.aboutToQuit.connect(gc.collect)
        app._turnscope_gc = collector
    return collector


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection inside (many objects made at once), and the collector's state
    restored after: an unconditional ``gc.enable()`` there had undone the GUI-thread-only
    collection, and a collection on a replay's pool thread then deadlocked with the GUI
    thread (the worker freeing a QObject waited for the GIL while holding Qt's lock; the
    GUI thread, holding the GIL, waited for that lock; seen in CI)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
