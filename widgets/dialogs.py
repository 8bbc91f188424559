"""The window's message boxes: files not imported, About. Plain text only."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from widgets.about import about_text

SHOWN_ERRORS = 20


def file_errors_box(parent: QWidget, lines: list[str]) -> QMessageBox:
    """A warning listing the files that could not be imported (opened, not modal)."""
    shown = lines[:SHOWN_ERRORS]
    if len(lines) > SHOWN_ERRORS:
        shown.append(f"… and {len(lines) - SHOWN_ERRORS:,} more")
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Turnscope: files not imported")
    box.setTextFormat(Qt.TextFormat.PlainText)  # paths and reasons are not markup
    box.setText(f"{len(lines):,} file(s) could not be imported:\n\n" + "\n".join(shown))
    if len(lines) > SHOWN_ERRORS:
        box.setDetailedText("\n".join(lines))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def about_box(parent: QWidget) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Information, "About Turnscope", "", parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(about_text())
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
