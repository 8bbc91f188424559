"""The import report: per input file, how its records were accounted for.

Every record a reader read is imported, skipped (by reason), rejected or a duplicate
(``records = imported + skipped + rejected + duplicates``, see
:class:`explorer.ingest.imports.FileReport`). The dialog lists that per file with a total row;
everything in it is plain text.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.ingest.imports import ACCOUNT_KEYS, FileReport, ImportReport
from explorer.text_escape import visible
from widgets.column_headers import column_header
from widgets.plain_text import tooltip

#: Column key, header and header tooltip (our own fixed texts).
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("path", "File", "The input file"),
    ("format", "Format", "The reader that read it"),
    ("records", "Records", "Records read: lines, rows, array elements or interactions "
                           "(blank lines are not records)"),
    ("imported", "Imported", "Records that gave at least one event"),
    ("skipped", "Skipped", "Records that are not conversation or repeat it (by reason in "
                           "the cell's tooltip)"),
    ("rejected", "Rejected", "Records that could not be read (File → Rejected lines…)"),
    ("duplicates", "Duplicates", "Records whose events were all copies of events already kept"),
    ("events", "Events", "Events kept"),
)
_KEYS = tuple(key for key, _, _ in COLUMNS)
_UNCHANGED = "Already imported with the same content: the counts stored then."
_Index = QModelIndex | QPersistentModelIndex


def _reasons_text(by_reason: dict[str, int]) -> str:
    if not by_reason:
        return "No record skipped"
    rows = sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))
    return "\n".join(f"{n:,}  {reason}" for reason, n in rows)


class ImportReportModel(QAbstractTableModel):
    """One row per file of an :class:`ImportReport`, then a total row (when there are
    files). ``Qt.ItemDataRole.UserRole`` gives a count column's number."""

    def __init__(self, report: ImportReport, parent=None) -> None:
        super().__init__(parent)
        self._files: list[FileReport] = list(report.files)
        self._total = report.totals()
        self._total_reasons = report.skipped_by_reason()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return len(self._files) + 1 if self._files else 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def is_total(self, row: int) -> bool:
        return row == len(self._files)

    def value(self, row: int, key: str):
        """The cell's value: a string for path and format, else an int."""
        if self.is_total(row):
            if key == "path":
                return f"Total ({len(self._files):,} file(s))"
            return "" if key == "format" else self._total[key]
        return getattr(self._files[row], key)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, key = index.row(), _KEYS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            value = self.value(row, key)
            if key == "path" and not self.is_total(row):
                return visible(value)
            return f"{value:,}" if isinstance(value, int) else value
        if role == Qt.ItemDataRole.UserRole:
            return self.value(row, key)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ACCOUNT_KEYS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and (self.is_total(row) or self._files[row].unchanged):
            font = QFont()
            font.setBold(self.is_total(row))
            font.setItalic(not self.is_total(row))
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, key)
        return None

    def _tooltip(self, row: int, key: str) -> str | None:
        if key == "skipped":
            reasons = self._total_reasons if self.is_total(row) else self._files[row].skipped_by_reason
            return tooltip(_reasons_text(reasons))
        if key == "path" and not self.is_total(row):
            f = self._files[row]
            return tooltip(visible(f.path) + ("\n" + _UNCHANGED if f.unchanged else ""))
        if key == "imported" and not self.is_total(row) and self._files[row].unknown_types:
            kinds = self._files[row].unknown_types   # format drift (FileReport.unknown_types)
            return tooltip("Records of types the reader did not know, kept as OTHER events:\n"
                           + "\n".join(f"{n:,}  {visible(k)}" for k, n in kinds.items()))
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        return column_header(COLUMNS, section, orientation, role)

    def as_text(self) -> str:
        """The table as tab-separated text (header, files, total)."""
        lines = ["\t".join(header for _, header, _ in COLUMNS)]
        for row in range(self.rowCount()):
            lines.append("\t".join(str(self.value(row, key)) for key in _KEYS))
        return "\n".join(lines)


class ImportReportDialog(QDialog):
    """The accounting of one import: a table of its files, and the files that failed."""

    def __init__(self, report: ImportReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turnscope: import report")
        self.resize(980, 460)
        self.model = ImportReportModel(report, self)
        unchanged = sum(f.unchanged for f in report.files)
        again = (f" {unchanged:,} file(s) (in italics) were already imported with the same "
                 "content: their stored counts are shown.") if unchanged else ""
        self.summary = QLabel(
            f"{len(report.files):,} file(s) read. Every record is counted once: records = "
            "imported + skipped + rejected + duplicates. Hover a Skipped cell for its "
            f"reasons.{again}", self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self.errors: QPlainTextEdit | None = None
        if report.errors:
            label = QLabel(f"{len(report.errors):,} file(s) could not be read:", self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            self.errors = QPlainTextEdit(self)
            self.errors.setReadOnly(True)
            self.errors.setPlainText("\n".join(str(e) for e in report.errors))
            self.errors.setMaximumHeight(80)
            layout.addWidget(label)
            layout.addWidget(self.errors)
        self.not_logs: QPlainTextEdit | None = None
        if report.not_logs:
            label = QLabel(f"{len(report.not_logs):,} file(s) in the folders opened are not "
                           "logs (not imported):", self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            self.not_logs = QPlainTextEdit(self)
            self.not_logs.setReadOnly(True)
            self.not_logs.setPlainText("\n".join(visible(str(e)) for e in report.not_logs))
            self.not_logs.setMaximumHeight(80)
            layout.addWidget(label)
            layout.addWidget(self.not_logs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("Copy table", self)
        self.copy_button.setToolTip("Copy the table as tab-separated text")
        self.copy_button.clicked.connect(self.copy_table)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def copy_table(self) -> None:
        QGuiApplication.clipboard().setText(self.model.as_text())


def show_import_report(parent: QWidget | None, report: ImportReport) -> ImportReportDialog:
    """Open the import report of ``report`` (non-modal, deleted when closed)."""
    dialog = ImportReportDialog(report, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog


if __name__ == "__main__":
    import sys

    from PySide6.QtWidgets import QApplication

    from explorer.cli.demo import demo_paths
    from explorer.ingest.imports import import_paths
    from explorer.store.db import Store

    app = QApplication(sys.argv)
    paths = sys.argv[1:] or [str(p) for p in demo_paths()]
    dialog = show_import_report(None, import_paths(Store(), paths))
    sys.exit(app.exec())
