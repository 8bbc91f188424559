"""Python's cyclic collector runs on the GUI thread only (widgets/gui_gc.py), also after a
session's tree has been built: a collection on a job's pool thread freed Qt objects there and
deadlocked with the GUI thread (CI, a replay's worker inside ``QObject::~QObject`` waiting
for the GIL while the GUI thread, holding it, waited for Qt's lock)."""

from __future__ import annotations

import gc
import threading

import pytest

from explorer.cli.demo import demo_paths
from explorer.session.data import load_tree
from explorer.store.db import Store
from tests.helpers import load
from widgets.gui_gc import collect_on_gui_thread, collection_paused
from widgets.turn_tree_model import TurnTreeModel
from widgets.workers import JobPool, Worker


@pytest.fixture(scope="module")
def demo():
    s = Store()
    load(s, *demo_paths())
    yield s
    s.close()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _cycles(progress, should_stop) -> int:
    """Make enough garbage cycles that an automatic collector would run several times."""
    for _ in range(50_000):
        _Cycle()
    return threading.get_ident()


def test_after_a_session_is_shown_no_pool_thread_collects(qapp, qtbot, demo):
    collect_on_gui_thread(qapp)
    session = demo.con.execute("SELECT session_id FROM events GROUP BY 1 "
                               "ORDER BY count(*) DESC LIMIT 1").fetchall()[0][0]
    first = load_tree(demo, session)
    model = TurnTreeModel()
    model.set_session(first.frame, first.marks, first.texts, first.tree)
    assert model.rowCount() > 2
    assert not gc.isenabled()
    where: list[int] = []
    gc.callbacks.append(record := lambda phase, info: where.append(threading.get_ident())
                        if phase == "start" else None)
    try:
        jobs = JobPool(max_threads=1)
        worker = Worker(_cycles, "cycles")
        with qtbot.waitSignal(worker.signals.finished, timeout=20_000) as done:
            jobs.start(worker)
        pool_thread = done.args[0]
        assert pool_thread != threading.get_ident()
        assert pool_thread not in where
        gc.collect()   # the GUI thread's own collection still runs
        assert where and set(where) == {threading.get_ident()}
    finally:
        gc.callbacks.remove(record)


def test_a_pause_gives_back_the_state_it_found():
    was = gc.isenabled()
    try:
        for before in (True, False):
            (gc.enable if before else gc.disable)()
            with collection_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is before
    finally:
        (gc.enable if was else gc.disable)()
