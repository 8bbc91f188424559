"""The sessions table view: sortable by header, wrapped two-line headers, columns fitted to data.

One session is selected at a time (the panels below show one); columns are sized from the
model's widest texts, never by asking every row.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QStyle, QTableView, QWidget

from widgets.sessions_model import SessionsModel

#: The widest the session id column starts (in characters of the header font).
SESSION_ID_CHARS = 16


class SessionsView(QTableView):
    """A read-only table of sessions, one row each; headers wrap so many columns fit. The
    session id column stays in place when the table scrolls sideways (``frozen``: a view of
    that column alone laid over it, sharing the model, the selection and the scrolling)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._natural: list[int] = []  # fitted widths, before the spare width is shared out
        self.setSortingEnabled(True)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a key shows its start and end
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap)
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionsMovable(True)
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(self._on_header_sort_indicator_changed)
        self.frozen = QTableView(self)

    def setModel(self, model) -> None:
        super().setModel(model)
        self._freeze()

    def _freeze(self) -> None:
        """Lay the session id column over the table (Qt's frozen column example)."""
        frozen = self.frozen
        frozen.setModel(self.model())
        frozen.setSelectionModel(self.selectionModel())
        frozen.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # the table keeps the focus and Tab
        frozen.verticalHeader().hide()
        frozen.verticalHeader().setDefaultSectionSize(self.verticalHeader().defaultSectionSize())
        frozen.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        frozen.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        frozen.setWordWrap(False)
        frozen.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        frozen.setAlternatingRowColors(True)
        frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollMode(self.verticalScrollMode())
        frozen.setFrameShape(QFrame.Shape.NoFrame)
        frozen.setStyleSheet("QTableView { border-right: 1px solid palette(mid); }")
        head = frozen.horizontalHeader()
        head.setDefaultAlignment(self.horizontalHeader().defaultAlignment())
        head.setHighlightSections(False)
        head.setSectionsClickable(True)
        head.setSortIndicatorShown(True)
        head.sectionClicked.connect(self._on_frozen_header_clicked)
        for col in range(1, self.model().columnCount() if self.model() else 0):
            frozen.setColumnHidden(col, True)
        self.horizontalHeader().sectionResized.connect(self._on_section_resized)
        self.verticalScrollBar().valueChanged.connect(frozen.verticalScrollBar().setValue)
        frozen.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.model().modelReset.connect(self._hide_frozen_columns)
        self.viewport().stackUnder(frozen)
        frozen.show()
        self._place_frozen()

    @Slot()
    def _hide_frozen_columns(self) -> None:
        for col in range(1, self.model().columnCount()):
            self.frozen.setColumnHidden(col, True)

    def _place_frozen(self) -> None:
        width = self.columnWidth(0)
        self.frozen.setColumnWidth(0, width)
        self.frozen.horizontalHeader().setMinimumHeight(self.horizontalHeader().height())
        self.frozen.horizontalHeader().setSortIndicator(
            0 if self.horizontalHeader().sortIndicatorSection() == 0 else -1,
            self.horizontalHeader().sortIndicatorOrder())
        self.frozen.setGeometry(self.frameWidth(), self.frameWidth(), width,
                                self.viewport().height() + self.horizontalHeader().height())

    @Slot(int, int, int)
    def _on_section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == 0:
            self._place_frozen()

    @Slot(int)
    def _on_frozen_header_clicked(self, _section: int) -> None:
        header = self.horizontalHeader()
        ascending = Qt.SortOrder.AscendingOrder
        order = (Qt.SortOrder.DescendingOrder if header.sortIndicatorSection() == 0
                 and header.sortIndicatorOrder() == ascending else ascending)
        self.sortByColumn(0, order)

    def fit_columns(self) -> None:
        """Size each column to its data and to the longest word of its header (headers wrap),
        then share out the width left over; the sorted column keeps room for its arrow."""
        model = self.model()
        if model is None:
            return
        header = self.horizontalHeader()
        metrics = header.fontMetrics()
        style = header.style()
        margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        arrow = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header) + margin
        sorted_col = header.sortIndicatorSection() if self.isSortingEnabled() else -1
        self._natural, lines = [], 1
        for col in range(model.columnCount()):
            label = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
            words = label.split() or [""]
            if col == sorted_col:
                # The style centres the label over the arrow: keep it on one line, clear of it.
                text_width = metrics.horizontalAdvance(label) + 2 * (arrow + margin)
            else:
                text_width = max(metrics.horizontalAdvance(w) for w in words) + 4 * margin
                lines = max(lines, _wrapped_lines(metrics, words, text_width - 2 * margin))
            width = max(self._data_width(col), text_width, 40)
            if col == 0:  # long keys (uuids, agent paths) are elided, not given the pane
                width = min(width, metrics.horizontalAdvance("M" * SESSION_ID_CHARS))
            self._natural.append(width)
        header.setMinimumHeight(lines * metrics.height() + 4 * margin)
        self._apply_widths()

    def _data_width(self, column: int) -> int:
        """The width the cells of ``column`` need: measured on the model's widest text when it
        offers one (asking every row would read the whole table), else sampled by Qt."""
        model = self.model()
        if not isinstance(model, SessionsModel):
            return self.sizeHintForColumn(column)
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self)
        return self.fontMetrics().horizontalAdvance(model.widest_text(column)) + 2 * margin + 8

    def _apply_widths(self) -> None:
        count = len(self._natural)
        if not count or count != self.horizontalHeader().count():
            return
        spare = max(0, self.viewport().width() - sum(self._natural))
        share, rest = divmod(spare, count)
        for col, width in enumerate(self._natural):
            self.horizontalHeader().resizeSection(col, width + share + (col < rest))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._apply_widths()
        self._place_frozen()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        if hasattr(self, "frozen"):
            self._place_frozen()

    @Slot(int, Qt.SortOrder)
    def _on_header_sort_indicator_changed(self, section: int, order: Qt.SortOrder) -> None:
        self.fit_columns()
        self._place_frozen()


def _wrapped_lines(metrics, words: list[str], width: int) -> int:
    """How many lines ``words`` take when wrapped at ``width`` pixels."""
    lines, current = 1, 0
    space = metrics.horizontalAdvance(" ")
    for word in words:
        w = metrics.horizontalAdvance(word)
        if current and current + space + w > width:
            lines, current = lines + 1, w
        else:
            current = current + space + w if current else w
    return lines
