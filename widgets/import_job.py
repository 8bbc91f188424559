"""The window's import job: one import at a time on the job pool, its progress in the
status bar's job widgets and its outcome in the status bar's message."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QStatusBar

from explorer.ingest.imports import ImportReport
from explorer.store.damage import database_problem
from explorer.store.db import Store
from explorer.text_escape import visible
from widgets.tasks import import_summary, import_task
from widgets.window_chrome import JobStatus
from widgets.workers import JobPool, Worker, reason


class ImportJob(QObject):
    """Imports files into one :class:`Store` in the background, one import at a time.

    Signals:
        running_changed(bool): an import started (True) or ended (False, before the signals
            of its outcome).
        finished(object): the :class:`ImportReport` of an import that ran to its end.
        failed(object): the exception an import failed with.
        ended(str): an import ended: ``"finished"``, ``"cancelled"`` or ``"failed"`` (last).
    """

    running_changed = Signal(bool)
    finished = Signal(object)
    failed = Signal(object)
    ended = Signal(str)

    def __init__(self, store: Store, jobs: JobPool, job_status: JobStatus, status: QStatusBar,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.jobs = jobs
        self.job_status = job_status
        self.status = status
        self._worker: Worker | None = None

    def running(self) -> bool:
        return self._worker is not None

    def start(self, paths: list[str]) -> Worker | None:
        """Import ``paths``; None when there are none or an import is running."""
        if not paths or self._worker is not None:
            return None
        worker = Worker(partial(import_task, self.store, [str(p) for p in paths]), "import")
        worker.signals.progressed.connect(self.job_status.set_progress)
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.cancelled.connect(self._on_worker_cancelled)
        self._worker = worker
        self.running_changed.emit(True)
        self.job_status.set_indeterminate()
        self.status.showMessage(f"Importing {len(paths):,} file(s)…")
        return self.jobs.start(worker)

    def _end(self, message: str) -> None:
        self._worker = None
        self.running_changed.emit(False)
        self.status.showMessage(message)

    @Slot(object)
    def _on_worker_finished(self, report: ImportReport) -> None:
        self._end(import_summary(report))
        self.finished.emit(report)
        self.ended.emit("finished")

    @Slot(object)
    def failure_text(self, exc: BaseException) -> str:
        """What a failed import says: a damaged, full or stopped database as such
        (explorer.store.damage: naming the database and what to do), else the reason."""
        return visible(database_problem(self.store.path, exc) or reason(exc))

    def _on_worker_failed(self, exc: Exception) -> None:
        self._end(f"Import failed: {self.failure_text(exc)}")
        self.failed.emit(exc)
        self.ended.emit("failed")

    @Slot()
    def _on_worker_cancelled(self) -> None:
        self._end("Import cancelled; files read before it are kept")
        self.ended.emit("cancelled")
