"""Loads the selected session off the GUI thread; only the newest request is delivered."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal, Slot

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.data import SessionData, load_session
from explorer.store.db import Store
from widgets.latest_job import LatestJob
from widgets.workers import JobPool, Worker


def load_task(store: Store, session_id: str, order: Order, cost_settings: CostSettings,
              settings: CompactionSettings, progress, should_stop) -> SessionData:
    db = store.cursor()
    try:
        return load_session(db, session_id, order, cost_settings, settings, texts_from=store)
    finally:
        db.close()


class SessionLoader(QObject):
    """Runs :func:`explorer.session.data.load_session` in a worker.

    Signals:
        loaded(object): the :class:`SessionData` of the newest request.
        failed(object): the newest request failed with this exception (already logged).
    """

    loaded = Signal(object)
    failed = Signal(object)

    def __init__(self, store: Store, jobs: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._latest = LatestJob(jobs, self)

    def load(self, session_id: str, order: Order, cost_settings: CostSettings,
             settings: CompactionSettings) -> Worker:
        """Ask for a session; an earlier request still running is cancelled and dropped."""
        worker = Worker(partial(load_task, self.store, session_id, Order(order), cost_settings,
                                settings), "session")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        return self._latest.start(worker)

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
