"""The filter in front of the sessions table: session-id substring, only sessions with findings."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt

from widgets.sessions_model import SessionsModel


class SessionsFilter(QSortFilterProxyModel):
    """Hides sessions of a :class:`SessionsModel`; sorting is left to the model (polars sorts).

    The matching is computed by the model over the whole frame at once, then read per row.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._only_findings = False
        # The proxy never sorts by itself: the model's order is the order shown.
        self.setDynamicSortFilter(False)

    def set_text(self, text: str) -> None:
        """Keep the sessions whose id holds ``text`` (any case, literally, not a pattern)."""
        if text != self._text:
            self.beginFilterChange()
            self._text = text
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_only_findings(self, only: bool) -> None:
        """Keep only the sessions with at least one non-zero finding."""
        if only != self._only_findings:
            self.beginFilterChange()
            self._only_findings = only
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int,
                         source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, SessionsModel) or source_parent.isValid():
            return True
        if not self._text and not self._only_findings:
            return True
        return model.row_matches(source_row, self._text, self._only_findings)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        # The header's sort indicator arrives here: hand it to the model, keep the proxy unsorted.
        model = self.sourceModel()
        if model is not None:
            model.sort(column, order)
