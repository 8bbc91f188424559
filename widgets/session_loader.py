"""Loads the selected session off the GUI thread, in two steps: its turn tree first
(:func:`explorer.session.data.load_tree`, shown at once), then everything else
(:func:`explorer.session.data.load_session`); only the newest request is delivered."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtCore import QObject, Signal, Slot

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.data import SessionData, SessionTree, load_session, load_tree
from explorer.session.preview import prepare
from explorer.session.turn_tree import TurnTree
from explorer.store.db import Store
from widgets.latest_job import LatestJob
from widgets.workers import JobPool, Worker


def tree_task(store: Store, session_id: str, order: Order, cost_settings: CostSettings,
              progress, should_stop) -> SessionTree:
    db = store.cursor()
    try:
        return load_tree(db, session_id, order, cost_settings, texts_from=store)
    finally:
        db.close()


def load_task(store: Store, session_id: str, order: Order, cost_settings: CostSettings,
              settings: CompactionSettings, progress, should_stop,
              first: SessionTree | None = None) -> SessionData:
    """The rest of the session after its tree ``first`` (its columns and tree reused when
    the rows are the same), with the tree the model takes in place."""
    db = store.cursor()
    try:
        data = load_session(db, session_id, order, cost_settings, settings, texts_from=store,
                            first=first)
    finally:
        db.close()
    prepare(data.log)   # what the first preview would build on the GUI thread
    reuse = first is not None and data.frame["eid"].equals(first.frame["eid"])
    tree = first.tree.marked(data.marks) if reuse else TurnTree.build(data.frame, data.marks)
    return replace(data, tree=tree)


class SessionLoader(QObject):
    """Runs :func:`explorer.session.data.load_session` in a worker.

    Signals:
        tree_loaded(object): the :class:`SessionTree` of the newest request (its first step).
        loaded(object): the :class:`SessionData` of the newest request (with its ``tree``).
        failed(object): the newest request failed with this exception (already logged).
    """

    tree_loaded = Signal(object)
    loaded = Signal(object)
    failed = Signal(object)

    def __init__(self, store: Store, jobs: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._latest = LatestJob(jobs, self)

    def load(self, session_id: str, order: Order, cost_settings: CostSettings,
             settings: CompactionSettings) -> Worker:
        """Ask for a session; an earlier request still running is cancelled and dropped.
        The worker returned reads its tree; when it is delivered, a second one reads the rest."""
        self._rest = partial(load_task, self.store, session_id, Order(order), cost_settings,
                             settings)
        worker = Worker(partial(tree_task, self.store, session_id, Order(order), cost_settings),
                        "session tree")
        worker.signals.finished.connect(self._on_tree_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        return self._latest.start(worker)

    @Slot(object)
    def _on_tree_finished(self, tree: SessionTree) -> None:
        if not self._latest.is_current(self.sender()):
            return
        worker = Worker(partial(self._rest, first=tree), "session")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        self._latest.start(worker)   # busy until the rest is delivered
        self.tree_loaded.emit(tree)

    def busy(self) -> bool:
        return self._latest.busy()

    @Slot(object)
    def _on_worker_finished(self, data: SessionData) -> None:
        if self._latest.is_current(self.sender()):
            self._latest.done()  # delivered: not busy any more, even before ``ended`` arrives
            self.loaded.emit(data)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self._latest.is_current(self.sender()):  # an older request's failure no longer matters
            self.failed.emit(exc)
