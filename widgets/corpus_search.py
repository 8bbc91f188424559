"""The corpus search over the session list: a box for words, then the sessions whose events'
text holds them (the most matching first), each with its first match; Enter or a
double-click on one shows that session at that event (as a finding is shown). The first
search after an import brings the word index in step (explorer.search.index): its progress
is shown beside the box. A search the index cannot answer at once lists what the last
texts hold first, then goes on over the older ones in the background, the list growing,
until it is complete (Escape in the box, or a new search, stops it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.session.corpus_search import LIMIT, SCAN_TEXTS, Found, SessionHit, steps
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.latest_job import LatestJob
from widgets.plain_text import whole_tip
from widgets.workers import JobPool, Worker, reason


def search_task(store: Store, words: str, progress: Callable[[int, int], None],
                should_stop: Callable[[], bool]) -> Iterator[Found]:
    """The sessions found, step by step (explorer.session.corpus_search.steps), on a cursor
    of this thread's own."""
    db = store.cursor()
    try:
        yield from steps(db, words, progress=progress, should_stop=should_stop)
    finally:
        db.close()


def summary(found: Found, stopped: bool = False) -> str:
    """What the box says of a search's result so far (``stopped``: by the user there)."""
    hits = found.hits
    if not hits and found.complete:
        return "not found"
    more = f" (the first {LIMIT:,})" if len(hits) >= LIMIT else ""
    said = f"{len(hits):,} session(s){more}, {sum(h.events for h in hits):,} event(s)"
    if found.complete:
        return said
    said += f" in the last {found.bound + found.read:,} texts"
    if stopped:
        return (f"{said}; stopped after {found.read:,} of {found.older:,} older texts "
                "(Enter: search again)")
    return f"{said}; searching older texts… {found.read:,} of {found.older:,}"


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
        self._found: Found | None = None     # the search's latest result
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Search every session's text (Enter)")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip("The sessions whose events' text (tool input and output too) "
                             "holds these words, case folded; the most matching first.\n"
                             "Words and punctuation are looked up in an index of every text's "
                             "words and symbols (built on the first search after an import); "
                             f"CJK alone, or words in too many texts, list what the last "
                             f"{SCAN_TEXTS:,} texts hold first, then go on over the older "
                             "ones (Esc stops)")
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
        self.edit.installEventFilter(self)

    @Slot()
    def run(self) -> Worker | None:
        """Search for the box's words in the background (None when it is empty)."""
        words = self.edit.text().strip()
        self._latest.drop()
        if not words:
            self._show([], "")
            return None
        worker = Worker(partial(search_task, self.store, words), "corpus search")
        worker.signals.stepped.connect(self._on_worker_stepped)
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.cancelled.connect(self._on_worker_cancelled)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.progressed.connect(self._on_worker_progressed)
        self.status.setText("searching…")
        self.status.setToolTip("")
        self._found = None
        return self._latest.start(worker)

    def hits(self) -> list[SessionHit]:
        return list(self._hits)

    def searching(self) -> bool:
        """Whether a search is under way (its first result or its older texts)."""
        return self._latest.busy()

    @Slot()
    def stop(self) -> None:
        """Stop the search under way: what it found so far stays listed, said as such."""
        if self._latest.drop() is None:
            return
        found = self._found
        self.status.setText("stopped" if found is None else summary(found, stopped=True))

    def shutdown(self) -> None:
        self._latest.drop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Escape in the box stops the search under way (else it goes on to the window:
        back to the tree)."""
        if (watched is self.edit and self.searching()
                and event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
                and event.key() == Qt.Key.Key_Escape):
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self.stop()
            return True
        return super().eventFilter(watched, event)

    def _show(self, hits: list[SessionHit], status: str) -> None:
        current = self.results.currentItem()
        keep = self._hits[self.results.indexOfTopLevelItem(current)].session_id \
            if current is not None else None
        self._hits = hits
        self.results.setUpdatesEnabled(False)
        self.results.clear()
        for hit in hits:
            item = QTreeWidgetItem(self.results, [elided(hit.session_id), f"{hit.events:,}",
                                                  visible(hit.snippet)])
            item.setToolTip(0, whole_tip(hit.session_id) or "")
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if hit.session_id == keep:   # the list grows under the user: keep their place
                self.results.setCurrentItem(item)
        self.results.setUpdatesEnabled(True)
        self.results.setVisible(bool(hits) or bool(status))
        self.status.setText(status)

    @Slot(object)
    def _on_worker_stepped(self, found: Found) -> None:
        if not self._latest.is_current(self.sender()):
            return
        self._found = found
        self._show(found.hits, summary(found))
        tip = ""
        if found.older:
            tip = ("CJK alone is not indexed, or the index left too many texts to read: the "
                   f"texts of the last {found.bound:,} events imported were read first, then "
                   f"the older ones, {found.bound:,} at a time"
                   + ("" if found.complete else " (Esc stops)"))
        self.status.setToolTip(tip)

    @Slot(object)
    def _on_worker_finished(self, _found: Found) -> None:
        if self._latest.is_current(self.sender()):   # its last step was shown
            self._latest.done()

    @Slot()
    def _on_worker_cancelled(self) -> None:
        if self._latest.is_current(self.sender()):   # stopped from elsewhere (the pool)
            self.stop()

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
