"""The table comparing every strategy at the current budget for one session
(rows of :func:`explorer.session.preview.compare`), recomputed once the budget stops moving."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont

from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.session.preview import compare
from widgets.column_headers import column_header
from widgets.latest_job import LatestJob
from widgets.workers import JobPool, Worker

DELAY_MS = 100   # the table waits this long after the last change before recomputing
#: A session of this many events or more is compared off the GUI thread (when the model
#: has a job pool): the 15 strategies over 3M events took 12 s of the GUI thread.
BIG_LOG = 200_000
#: Columns: (metric key, header, header tooltip).
COLUMNS = (
    ("strategy", "strategy", "The strategy as written on the command line."),
    ("cost", "cost", "Cost of the view in tokens."),
    ("over", "over", "The view costs more than the budget."),
    ("empty", "empty", "The view holds no USER, ASSISTANT, CALL or RESULT event."),
    ("orphan_results", "orphans", "Tool results in the view with no call before them."),
    ("orphan_calls", "dangling", "Tool calls in the view with no result after them."),
    ("pair_split", "split", "The cut falls between a dropped call and its kept result."),
    ("partial_dropped", "partial", "A partial turn was dropped at the cut."),
    ("fallback", "fallback", "M4 fell back to M0's cut."),
    ("repaired", "repaired", "M2's dropped heads plus added placeholders."),
)
BAD = {"over", "empty", "orphan_results", "orphan_calls", "pair_split"}
BAD_COLOUR = QColor(190, 30, 30)
CURRENT_COLOUR = QColor(255, 236, 160)
CURRENT_TEXT = QColor(30, 24, 0)   # dark on the light tint, under a dark palette too


def cell_text(key: str, value) -> str:
    if key == "strategy":
        return str(value)
    if isinstance(value, bool):
        return "yes" if value else ""
    if key.startswith("rejected_"):
        return f"{int(value):,} error{'s' if value != 1 else ''}" if value else "ok"
    return f"{int(value):,}"


class CompareModel(QAbstractTableModel):
    """One row per strategy with the metrics of its view; the current strategy is bold on a
    tinted row, bad figures are red.

    Signals:
        refreshed(): the rows were recomputed (after :meth:`schedule` and its delay, or
            :meth:`refresh`).
        settled(): the comparison computed off the GUI thread is over (its rows shown, or
            it failed) and no newer one runs.
    """

    refreshed = Signal()
    settled = Signal()

    def __init__(self, parent: QObject | None = None, jobs: JobPool | None = None) -> None:
        super().__init__(parent)
        self._latest = LatestJob(jobs, self) if jobs is not None else None
        self._rows: list[dict] = []
        self._columns = COLUMNS
        self._providers: tuple[str, ...] = ()
        self._current = ""
        self._pending: tuple | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DELAY_MS)
        self.timer.timeout.connect(self._on_timer_timeout)

    # -- feeding ----------------------------------------------------------------------------
    def schedule(self, log: SessionLog, budget: int, strategies: list[str],
                 settings: CompactionSettings) -> None:
        """Recompute for these arguments once no other call came for ``DELAY_MS``."""
        self._pending = (log, budget, list(strategies), settings)
        self.timer.start()

    def refresh(self) -> None:
        """Recompute now for the last scheduled arguments (nothing when none is pending)."""
        self.timer.stop()
        if self._pending is None:
            return
        log, budget, strategies, settings = self._pending
        self._pending = None
        providers = self._providers
        if self._latest is not None and log.n >= BIG_LOG:   # off the GUI thread
            worker = Worker(lambda progress, should_stop: compare(log, budget, strategies,
                                                                  settings, providers),
                            "compare")
            worker.signals.finished.connect(self._on_worker_finished)
            worker.signals.ended.connect(self._on_worker_ended)
            self._latest.start(worker)
            return
        self.set_rows(compare(log, budget, strategies, settings, providers))
        self.refreshed.emit()

    def busy(self) -> bool:
        """A comparison is being computed off the GUI thread."""
        return self._latest is not None and self._latest.busy()

    @Slot(object)
    def _on_worker_finished(self, rows: list[dict]) -> None:
        if self._latest is not None and self._latest.is_current(self.sender()):
            self._latest.done()
            self.set_rows(rows)
            self.refreshed.emit()

    @Slot(object)
    def _on_worker_ended(self, _worker) -> None:
        if self._latest is not None and (not self._latest.busy()
                                         or self._latest.is_current(self.sender())):
            self.settled.emit()

    def clear(self) -> None:
        """No session: no rows, nothing pending."""
        self.timer.stop()
        self._pending = None
        if self._latest is not None:
            self._latest.drop()
        self.set_rows([])

    def set_rows(self, rows: list[dict]) -> None:
        """Show these rows (the same strategies as before: updated in place)."""
        same = [r["strategy"] for r in rows] == [r["strategy"] for r in self._rows]
        if same and rows:
            self._rows = rows
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(rows) - 1, len(self._columns) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def set_provider(self, provider: str | None) -> None:
        """Add a column of the errors ``provider`` would return (None: no such column); the
        rows are recomputed at the next :meth:`schedule`."""
        from explorer.providers import LABELS
        from explorer.providers.sweep_figures import figure_name
        providers = () if provider is None else (provider,)
        if providers == self._providers:
            return
        self.beginResetModel()
        self._providers = providers
        self._columns = COLUMNS + tuple(
            (figure_name(p), LABELS[p], (f"Errors {LABELS[p]} would return for the view "
                                         "(PROVIDERS.md); ok: accepted."))
            for p in providers)
        self._rows = []
        self.endResetModel()

    def set_current(self, strategy: str) -> None:
        """Highlight the row of ``strategy`` (the one previewed)."""
        if strategy == self._current:
            return
        changed = [i for i, r in enumerate(self._rows) if r["strategy"] in (strategy, self._current)]
        self._current = strategy
        for row in changed:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._columns) - 1))

    def rows(self) -> list[dict]:
        return list(self._rows)

    def current_row(self) -> int | None:
        """The row of the highlighted strategy (None when it has none)."""
        return next((i for i, r in enumerate(self._rows) if r["strategy"] == self._current),
                    None)

    def current(self) -> str:
        return self._current

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.refresh()

    # -- the model --------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        row = self._rows[index.row()]
        key = self._columns[index.column()][0]
        value = row.get(key, 0)
        current = row["strategy"] == self._current
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(key, value)
        if role == Qt.ItemDataRole.UserRole:   # the value itself (copied as TSV unformatted)
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and key != "strategy":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bad = key in BAD or key.startswith("rejected_")
        if role == Qt.ItemDataRole.ForegroundRole and bad and value:
            return QBrush(BAD_COLOUR)
        if role == Qt.ItemDataRole.ForegroundRole and current:
            return QBrush(CURRENT_TEXT)
        if role == Qt.ItemDataRole.BackgroundRole and current:
            return QBrush(CURRENT_COLOUR)
        if role == Qt.ItemDataRole.FontRole and (current or (bad and value)):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row['strategy']}: {self._columns[index.column()][2]}" if key != "strategy" \
                else ("previewed strategy" if current else "")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        return column_header(self._columns, section, orientation, role)
