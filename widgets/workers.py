"""Background jobs: a thin QRunnable around a plain function, and the pool that runs them.

The only module that touches ``QThreadPool``. A job is a plain function
``fn(progress, should_stop)`` (the shape of :func:`explorer.ingest.imports.import_paths`): it reports
with ``progress(done, total)`` and polls ``should_stop()``; :meth:`Worker.cancel` sets the
flag it polls. Results travel back to the GUI thread through queued signals.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from explorer.jobs import Cancelled

Job = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]
log = logging.getLogger(__name__)


def reason(exc: BaseException) -> str:
    """What a failure says to the user: the exception's text, else its type's name."""
    return str(exc) or type(exc).__name__


class WorkerSignals(QObject):
    """The signals of one :class:`Worker`; lives in the GUI thread, so slots run there.

    Signals:
        progressed(int, int): ``done`` out of ``total`` units of work.
        stepped(object): a function that returns an iterator made this step's value (each
            in turn, as it comes; ``finished`` then carries the last).
        finished(object): the function returned this value.
        failed(object): the function raised this exception (logged with its traceback;
            :func:`reason` is what to show).
        cancelled(): the function stopped because :meth:`Worker.cancel` was called
            (or never started because it was called before).
        ended(object): emitted last, whatever the outcome, with the worker itself.
    """

    progressed = Signal(int, int)
    stepped = Signal(object)
    finished = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    ended = Signal(object)


class Worker(QRunnable):
    """Runs ``fn(progress, should_stop)`` on a pool thread; see :class:`WorkerSignals`.

    Exactly one of ``finished``, ``failed`` or ``cancelled`` is emitted, then ``ended``.
    A function that returns normally has finished even when it was asked to stop late:
    its result is complete, so it is reported rather than thrown away. A function that
    returns an iterator is run step by step (``stepped`` for each value) and stops between
    two steps once asked.
    """

    def __init__(self, fn: Job, name: str = "job") -> None:
        super().__init__()
        # Python keeps the worker alive (JobPool holds it): the pool must not delete it.
        self.setAutoDelete(False)
        self.fn = fn
        self.name = name
        self.signals = WorkerSignals()
        self._stop = threading.Event()

    def cancel(self) -> None:
        """Ask the function to stop at its next poll; safe from any thread, any time."""
        self._stop.set()

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        signals = self.signals
        try:
            if self._stop.is_set():
                signals.cancelled.emit()
                return
            try:
                result = self.fn(self._progress, self._stop.is_set)
                if isinstance(result, Iterator):
                    result = self._steps(result)
            except Cancelled:
                signals.cancelled.emit()
            except Exception as exc:  # noqa: BLE001 - reported to the user, never lost
                if self._stop.is_set():
                    # Stopping may surface as another error (an interrupted query).
                    log.debug("%s stopped by %r", self.name, exc)
                    signals.cancelled.emit()
                else:
                    log.error("%s failed", self.name, exc_info=exc)
                    signals.failed.emit(exc)
            else:
                signals.finished.emit(result)
        finally:
            signals.ended.emit(self)

    def _steps(self, values: Iterator) -> Any:
        """Emit each of ``values`` as it comes; the last, or Cancelled once asked to stop."""
        last = None
        try:
            for last in values:
                if self._stop.is_set():
                    raise Cancelled(self.name)
                self.signals.stepped.emit(last)
        finally:
            close = getattr(values, "close", None)
            if close is not None:
                close()
        return last

    def _progress(self, done: int, total: int) -> None:
        self.signals.progressed.emit(int(done), int(total))


class JobPool(QObject):
    """Starts workers on its own thread pool and keeps them alive until they have ended.

    Signals:
        busy_changed(bool): True when the first job starts, False when the last one ends.
    """

    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, max_threads: int = 4) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._running: list[Worker] = []

    def start(self, worker: Worker) -> Worker:
        """Run ``worker`` (its signals already connected) and return it."""
        # The signals object becomes a child of the pool: Qt owns it, and it is deleted
        # on the GUI thread (deleteLater) once the queued ``ended`` has been delivered.
        worker.signals.setParent(self)
        worker.signals.ended.connect(self._on_worker_ended)
        self._running.append(worker)
        if len(self._running) == 1:
            self.busy_changed.emit(True)
        self._pool.start(worker)
        return worker

    def running(self) -> list[Worker]:
        return list(self._running)

    def is_busy(self) -> bool:
        return bool(self._running)

    def cancel_all(self) -> None:
        for worker in self._running:
            worker.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until every started worker has returned (for shutdown and tests)."""
        return self._pool.waitForDone(msecs)

    @Slot(object)
    def _on_worker_ended(self, worker: Worker) -> None:
        if worker in self._running:
            self._running.remove(worker)
            worker.signals.deleteLater()
            if not self._running:
                self.busy_changed.emit(False)
