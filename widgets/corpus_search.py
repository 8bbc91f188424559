"""The corpus search over the session list: a box for words, then the sessions whose events'
text holds them (the most matching first), each with its first match; Enter or a
double-click on one shows that session at that event (as a finding is shown). The first
search after an import brings the word index in step (explorer.search.index): its progress
is shown beside the box."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.session.corpus_search import LIMIT, SCAN_TEXTS, Found, SessionHit, find
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.latest_job import LatestJob
from widgets.plain_text import whole_tip
from widgets.workers import JobPool, Worker, reason


def search_task(store: Store, words: str, progress: Callable[[int, int], None],
                should_stop: Callable[[], bool]) -> Found:
    """The sessions found, and whether the search read the last texts only (words the
    index cannot narrow)."""
    db = store.cursor()
    try:
        return find(db, words, progress=progress, should_stop=should_stop)
    finally:
        db.close()


class CorpusSearch(QWidget):
    """The box and, once it searched, the sessions found (``results``).

    Signals:
        hit_activated(str, list): a session found was chosen: its id and its first matching
            event (a one-item list of seq, sub, kind, call_id).
    """

    hit_activated = Signal(str, list)

    def __init__(self, store: Store, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._latest = LatestJob(jobs, self)
        self._hits: list[SessionHit] = []
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Search every session's text (Enter)")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip("The sessions whose events' text (tool input and output too) "
                             "holds these words, case folded; the most matching first.\n"
                             "Words and punctuation are looked up in an index of every text's "
                             "words and symbols (built on the first search after an import); "
                             f"CJK alone, or words in too many texts, read the last "
                             f"{SCAN_TEXTS:,} texts only")
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        # On its own line and wrapped: a long status never widens the session pane nor
        # squeezes the box (it did both at 1280x800).
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.results = QTreeWidget(self)
        self.results.setRootIsDecorated(False)
        self.results.setHeaderLabels(["session", "events", "first match"])
        self.results.setColumnWidth(0, self.fontMetrics().averageCharWidth() * 18)
        self.results.setColumnWidth(1, self.fontMetrics().averageCharWidth() * 7)
        self.results.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.status)
        layout.addWidget(self.results, 1)
        self.edit.returnPressed.connect(self.run)
        self.edit.textChanged.connect(self._on_text_changed)
        self.results.itemActivated.connect(self._on_item_activated)

    @Slot()
    def run(self) -> Worker | None:
        """Search for the box's words in the background (None when it is empty)."""
        words = self.edit.text().strip()
        self._latest.drop()
        if not words:
            self._show([], "")
            return None
        worker = Worker(partial(search_task, self.store, words), "corpus search")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.progressed.connect(self._on_worker_progressed)
        self.status.setText("searching…")
        return self._latest.start(worker)

    def hits(self) -> list[SessionHit]:
        return list(self._hits)

    def shutdown(self) -> None:
        self._latest.drop()

    def _show(self, hits: list[SessionHit], status: str) -> None:
        self._hits = hits
        self.results.clear()
        for hit in hits:
            item = QTreeWidgetItem(self.results, [elided(hit.session_id), f"{hit.events:,}",
                                                  visible(hit.snippet)])
            item.setToolTip(0, whole_tip(hit.session_id) or "")
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.results.setVisible(bool(hits) or bool(status))
        self.status.setText(status)

    @Slot(object)
    def _on_worker_finished(self, found: Found) -> None:
        if not self._latest.is_current(self.sender()):
            return
        self._latest.done()
        hits = found.hits
        more = f" (the first {LIMIT:,})" if len(hits) >= LIMIT else ""
        events = sum(h.events for h in hits)
        status = f"{len(hits):,} session(s){more}, {events:,} event(s)" if hits else "not found"
        tip = ""
        if found.bounded_from is not None:
            status += f" in the last {found.bound:,} texts"
            tip = ("CJK alone is not indexed, or the index left too many texts to read: "
                   f"only the texts of the last {found.bound:,} events imported were read")
        self._show(hits, status)
        self.status.setToolTip(tip)

    @Slot(int, int)
    def _on_worker_progressed(self, done: int, total: int) -> None:
        if self._latest.is_current(self.sender()) and total:
            self.status.setText(f"indexing the texts: {100 * done // total}%…")

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self._latest.is_current(self.sender()):
            self._latest.done()
            self.status.setText(f"search failed: {visible(reason(exc))}")

    @Slot(str)
    def _on_text_changed(self, text: str) -> None:
        if not text.strip():
            self._latest.drop()
            self._show([], "")

    @Slot(QTreeWidgetItem, int)
    def _on_item_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        hit = self._hits[self.results.indexOfTopLevelItem(item)]
        self.hit_activated.emit(hit.session_id, [hit.first])
