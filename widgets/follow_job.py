"""File → Follow…: the window follows a growing log (:class:`explorer.ingest.follow.Follower`).

A timer looks at the log every ``interval`` ms; what changed is imported on the job pool
(one catch-up at a time, none while an import runs), then the session list and the open
session are shown again in place: the selected session and event stay selected, and the
list and the tree keep their scroll positions. A status-bar badge says "following".
"""

from __future__ import annotations

import os
from functools import partial

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QStatusBar

from explorer.ingest.follow import Follower
from explorer.ingest.imports import ImportReport
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.texts import LOG_FILTER
from widgets.workers import JobPool, Worker, reason


def follow_task(store: Store, follower: Follower, progress, should_stop) -> ImportReport:
    """One catch-up on the calling thread's own cursor."""
    db = store.cursor()
    try:
        return follower.catch_up(db, progress, should_stop)
    finally:
        db.close()


class FollowJob(QObject):
    """Follows one log for a window (``window``: a :class:`widgets.main_window.MainWindow`).

    Signals:
        caught_up(object): the :class:`ImportReport` of a catch-up that imported something.
        following_changed(bool): following started (True) or stopped (False).
    """

    caught_up = Signal(object)
    following_changed = Signal(bool)

    def __init__(self, store: Store, jobs: JobPool, window, status: QStatusBar,
                 action: QAction, interval: int = 250) -> None:
        """``action``: the checkable File → Follow… entry, checked while following."""
        super().__init__(window)
        self.store, self.jobs, self.window = store, jobs, window
        self.follower: Follower | None = None
        self._worker: Worker | None = None
        self._kept: dict | None = None   # the view to restore once the refresh is shown
        self._reload = False             # a catch-up's list is still to be shown
        self._awaiting: str | None = None   # the session reloaded for it
        self.timer = QTimer(self)
        self.timer.setInterval(interval)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.badge = QLabel(" following ", status)
        self.badge.setStyleSheet("QLabel { background: #1b7f3b; color: white; "
                                 "border-radius: 3px; padding: 0 4px; font-weight: bold; }")
        self.badge.hide()
        status.addPermanentWidget(self.badge)
        self.action = action
        action.triggered.connect(self._on_action_triggered)
        self.following_changed.connect(action.setChecked)
        window.sessions.shown.connect(self._on_sessions_shown)
        window.workspace.tree_shown.connect(self._on_workspace_tree_shown)
        window.workspace.session_shown.connect(self._on_workspace_session_shown)

    @property
    def path(self) -> str | None:
        return str(self.follower.path) if self.follower else None

    def following(self) -> bool:
        return self.follower is not None

    def start(self, path: str | os.PathLike) -> None:
        """Follow ``path`` (a file or a folder), importing what it holds now first."""
        self.follower = Follower(path)
        self.badge.setToolTip(visible(f"Following {self.follower.path}: new records are "
                                      "imported as they are written"))
        self.badge.show()
        self.timer.start()
        self.following_changed.emit(True)
        self._on_timer_timeout()

    def stop(self) -> None:
        self.timer.stop()
        self.follower = None
        self.badge.hide()
        if self._worker is not None:
            self._worker.cancel()
        self.following_changed.emit(False)

    # -- slots ----------------------------------------------------------------------------
    @Slot(bool)
    def _on_action_triggered(self, checked: bool) -> None:
        """File → Follow…: pick the log to follow; unchecked: stop following."""
        if not checked:
            self.stop()
            return
        path, _ = QFileDialog.getOpenFileName(self.window, "Follow a growing session log", "",
                                              LOG_FILTER)
        if path:
            self.window.follow(path)
        else:
            self.action.setChecked(self.following())

    @Slot()
    def _on_timer_timeout(self) -> None:
        if self.follower is None or self._worker is not None or self.window.importer.running():
            return
        worker = Worker(partial(follow_task, self.store, self.follower), "follow")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.ended.connect(self._on_worker_ended)
        self._worker = worker
        self.jobs.start(worker)

    @Slot(object)
    def _on_worker_ended(self, _worker) -> None:
        self._worker = None

    @Slot(object)
    def _on_worker_finished(self, report: ImportReport) -> None:
        fresh = [f for f in report.files if not f.unchanged]
        if report.errors:
            self.window.statusBar().showMessage(
                f"Following: {visible(str(report.errors[0]))}", 5000)
        if not fresh:
            return
        self.window.last_report = report
        # A refresh not yet shown keeps what the user had before it (the tree is being
        # rebuilt, without its selection, until then).
        self._kept = self._kept or self._keep()
        self._reload = True
        self.window.refresh_audit(at_once=False)
        self.window.statusBar().showMessage(
            f"Following {elided(self.path or '')}: {sum(f.events for f in fresh):,} events "
            f"now in {len(fresh):,} changed file(s)", 5000)
        self.caught_up.emit(report)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        self.window.statusBar().showMessage(f"Following: {visible(reason(exc))}", 5000)

    # -- the view kept across a refresh --------------------------------------------------
    def _keep(self) -> dict:
        panel = self.window.session_panel
        current = panel.tree.currentIndex()
        row = panel.model.frame_row(current) if current.isValid() else None
        event = None
        if row is not None:
            e = panel.model.event(row)
            event = {k: e.get(k) for k in ("seq", "sub", "kind", "call_id")}
        return {"list": self.window.table.verticalScrollBar().value(),
                "tree": panel.tree.verticalScrollBar().value(),
                "session": self.window.workspace.session_id, "event": event}

    @Slot(object)
    def _on_sessions_shown(self, _order) -> None:
        kept = self._kept
        if not self._reload or kept is None:
            return
        self._reload = False
        self.window.table.verticalScrollBar().setValue(kept["list"])
        if kept["session"] is None:
            self._kept = None
            return
        self._awaiting = kept["session"]
        self.window.workspace.show_session(kept["session"], kept["event"])

    @Slot(str)
    def _on_workspace_tree_shown(self, session_id: str) -> None:
        """The tree is shown before its marks (the selection comes with the rest, as the
        workspace's pending event): the scroll position is put back now, and again once
        the rest is shown (:meth:`_on_workspace_session_shown`)."""
        if self._kept is not None and session_id == self._awaiting:
            self.window.session_panel.tree.verticalScrollBar().setValue(self._kept["tree"])

    @Slot(str)
    def _on_workspace_session_shown(self, session_id: str) -> None:
        kept = self._kept
        if kept is None or session_id != self._awaiting:
            return
        bar = self.window.session_panel.tree.verticalScrollBar()
        bar.setValue(kept["tree"])
        QTimer.singleShot(0, partial(bar.setValue, kept["tree"]))   # after the layout
        if not self._reload:   # else a newer catch-up reloads it again, with the same view
            self._kept, self._awaiting = None, None
