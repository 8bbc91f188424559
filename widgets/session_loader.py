"""Loads the selected session off the GUI thread; only the newest request is delivered."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal, Slot

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.data import SessionData, load_session
from explorer.store.db import Store
from widgets.workers import JobPool, Worker


def load_task(store: Store, session_id: str, order: Order, cost_settings: CostSettings,
              settings: CompactionSettings, generation: int, progress, should_stop
              ) -> tuple[int, SessionData]:
    db = store.cursor()
    try:
        return generation, load_session(db, session_id, order, cost_settings, settings)
    finally:
        db.close()


class SessionLoader(QObject):
    """Runs :func:`explorer.session.data.load_session` in a worker.

    Signals:
        loaded(object): the :class:`SessionData` of the newest request.
        failed(str): the newest request failed; the text says why.
    """

    loaded = Signal(object)
    failed = Signal(str)

    def __init__(self, store: Store, jobs: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.jobs = jobs
        self._generation = 0
        self._worker: Worker | None = None

    def load(self, session_id: str, order: Order, cost_settings: CostSettings,
             settings: CompactionSettings) -> Worker:
        """Ask for a session; an earlier request still running is cancelled and dropped."""
        if self._worker is not None:
            self._worker.cancel()
        self._generation += 1
        worker = Worker(partial(load_task, self.store, session_id, Order(order), cost_settings,
                                settings, self._generation), "session")
        worker.signals.finished.connect(self._on_finished)
        worker.signals.failed.connect(partial(self._on_failed, self._generation))
        worker.signals.ended.connect(self._on_ended)
        self._worker = worker
        return self.jobs.start(worker)

    def busy(self) -> bool:
        return self._worker is not None

    @Slot(object)
    def _on_finished(self, result: tuple[int, SessionData]) -> None:
        generation, data = result
        if generation == self._generation:
            self._worker = None  # delivered: not busy any more, even before ``ended`` arrives
            self.loaded.emit(data)

    def _on_failed(self, generation: int, reason: str) -> None:
        if generation == self._generation:  # an older request's failure no longer matters
            self.failed.emit(reason)

    @Slot(object)
    def _on_ended(self, worker: Worker) -> None:
        if worker is self._worker:
            self._worker = None
