"""Drag and drop of log files onto the window: which dropped URLs are files to import."""

from __future__ import annotations

from PySide6.QtCore import QMimeData


def dropped_paths(mime: QMimeData) -> list[str]:
    """The local files among the dragged URLs (folders and remote URLs left out)."""
    if not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]
