"""The dialog that lists rejected input lines: plain text the user can select and copy."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.ingest.rejected import RejectedLine


class RejectedDialog(QDialog):
    """Shows ``lines`` (the first ones when ``total`` is larger), one per row:
    ``path:line: reason: text``. The text is never interpreted (a QPlainTextEdit)."""

    def __init__(self, lines: list[RejectedLine], total: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turnscope: rejected lines")
        self.resize(900, 420)
        shown = len(lines)
        more = f" (the first {shown:,} shown)" if total > shown else ""
        self.summary = QLabel(
            f"{total:,} input line(s) could not be imported{more}. They are kept in the "
            "database with their file, line, reason and text.", self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setPlainText("\n".join(line.as_text() for line in lines))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("Copy all", self)
        self.copy_button.setToolTip("Copy every line shown to the clipboard")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_all)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
