"""Log text and file paths shown as the characters they are, where Qt would interpret them.

A QLabel or QMessageBox takes ``setTextFormat(Qt.TextFormat.PlainText)``; a tooltip has no such
switch (Qt shows it as rich text when :func:`Qt.mightBeRichText` says so), and a menu entry
reads ``&`` as a mnemonic and a tab as the start of a shortcut. These helpers make such text
safe to hand over. An id or path is shown :func:`explorer.text_escape.elided` (invisible
characters escaped, the middle of a long one cut) with :func:`whole_tip` as its tooltip.
"""

from __future__ import annotations

from html import escape

from PySide6.QtGui import Qt

from explorer.text_escape import elided, visible


def tooltip(text: str) -> str:
    """``text`` as a tooltip that shows exactly its characters: unchanged when Qt would show
    it as plain text anyway, else escaped inside a paragraph that keeps spaces and newlines."""
    if not Qt.mightBeRichText(text):
        return text
    return '<p style="white-space:pre-wrap">' + escape(text, quote=False) + "</p>"


def menu_entry(text: str) -> str:
    """``text`` as a QAction or QMenu label on one line: ``&`` doubled (no mnemonic), tabs
    (a tab starts the shortcut column) and line breaks as spaces."""
    return " ".join(text.replace("&", "&&").replace("\t", " ").splitlines())


def whole_tip(value: str) -> str | None:
    """The tooltip of an id or path shown :func:`~explorer.text_escape.elided`: the whole
    value, escaped; None when what is shown is the value itself."""
    return None if elided(value) == value else tooltip(visible(value))
