"""Ctrl+C on a table view copies its selection as TSV: a header line, then one line per
selected row, the selected columns in their order. A cell is its whole value (the model's
``UserRole`` where it gives one: a session id unelided), tabs and line breaks escaped."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")


def selection_tsv(view: QAbstractItemView) -> str:
    """The TSV text of the view's selected cells ("" when none is selected)."""
    model = view.model()
    indexes = view.selectionModel().selectedIndexes() if view.selectionModel() else []
    if not indexes:
        return ""
    header = view.horizontalHeader() if hasattr(view, "horizontalHeader") else None
    columns = sorted({i.column() for i in indexes},
                     key=lambda c: header.visualIndex(c) if header is not None else c)
    columns = [c for c in columns if header is None or not header.isSectionHidden(c)]
    rows = sorted({i.row() for i in indexes})
    lines = ["\t".join(_cell(model.headerData(c, Qt.Orientation.Horizontal)) for c in columns)]
    for row in rows:
        values = []
        for column in columns:
            index = model.index(row, column)
            raw = index.data(Qt.ItemDataRole.UserRole)
            values.append(_cell(raw if isinstance(raw, (str, int, float)) and
                                not isinstance(raw, bool) else index.data()))
        lines.append("\t".join(values))
    return "\n".join(lines) + "\n"


def install_tsv_copy(view: QAbstractItemView) -> QObject:
    """Make Ctrl+C (the platform's Copy) on ``view`` copy its selection as TSV."""
    shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), view)
    shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
    shortcut.activated.connect(lambda: _copy(view))
    return shortcut


def _copy(view: QAbstractItemView) -> None:
    text = selection_tsv(view)
    if text:
        QGuiApplication.clipboard().setText(text)
