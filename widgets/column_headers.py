"""Horizontal headers of the table models whose columns are (key, header, tooltip) triples."""

from __future__ import annotations

from PySide6.QtCore import Qt


def column_header(columns, section: int, orientation: Qt.Orientation, role: int):
    """The header text or tooltip of column ``section`` (None for anything else)."""
    if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(columns):
        return None
    if role == Qt.ItemDataRole.DisplayRole:
        return columns[section][1]
    if role == Qt.ItemDataRole.ToolTipRole:
        return columns[section][2]
    return None
