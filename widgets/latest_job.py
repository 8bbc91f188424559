"""Latest request wins: a series of background requests of one kind, where starting one
cancels the one before and only the newest worker's signals count.

Each panel that reloads in the background (the session list's audit, the findings, the
session loaded for the tree, the corpus sweep) holds one :class:`LatestJob`: a result that
comes back after a newer request was made is dropped by asking :meth:`LatestJob.is_current`
about the sender of the signal.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot

from widgets.workers import JobPool, Worker


class LatestJob(QObject):
    """The newest worker of one kind of request, run on ``jobs``; emits nothing itself."""

    def __init__(self, jobs: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.worker: Worker | None = None

    def start(self, worker: Worker) -> Worker:
        """Cancel the request running (its result would be dropped anyway: spare the
        thread), then run ``worker`` (its signals already connected) as the newest one."""
        self.drop()
        self.worker = worker
        # Connected after the owner's slots, so those still see it current when it ends.
        worker.signals.ended.connect(self._on_worker_ended)
        return self.jobs.start(worker)

    def is_current(self, sender: QObject | None) -> bool:
        """Whether a signal's sender (``self.sender()`` in a slot) is the newest worker's."""
        return self.worker is not None and sender is self.worker.signals

    def busy(self) -> bool:
        return self.worker is not None

    def done(self) -> None:
        """The newest result was delivered: nothing is pending any more, even before the
        worker's ``ended`` arrives."""
        self.worker = None

    def drop(self) -> Worker | None:
        """Cancel the newest request and forget it (whatever it sends is dropped); the
        worker it was, if any."""
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.cancel()
        return worker

    @Slot(object)
    def _on_worker_ended(self, worker: Worker) -> None:
        if worker is self.worker:
            self.worker = None
