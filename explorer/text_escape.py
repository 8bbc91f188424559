"""Ids and paths shown as what they are: invisible characters as visible escapes, long values
elided. The one rule for every place a log's id or a file's path reaches the user (the window's
lists, titles, status bar and dialogs; the command line's messages).

A control character (a newline, a tab, an escape sequence's ESC), a bidirectional control
(U+202E turns the rest of a line around), a zero-width character (``a\\u200bbc`` looks like
``abc``) or a lone surrogate (which no terminal can print) is written as the escape Python
would write (``\\n``, ``\\x1b``, ``\\u202e``): two ids that differ look different, a crafted
name cannot turn a line around or start a new message line. A backslash is left as it is
(Windows paths, ids with one), so an id holding the six characters ``\\u202e`` reads as the
escaped one does; the tooltip and the raw value (``UserRole``, ``--json``) tell them apart.

Qt-free: the core's messages use it, and so do the widgets.
"""

from __future__ import annotations

import re

#: Shown at most of a long value: its first HEAD and last TAIL characters around ELLIPSIS.
HEAD, TAIL = 40, 20
ELLIPSIS = "…"

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b-\u200d\u2060\ufeff"
_LINE_BREAKS = "\u2028\u2029\x85"
_INVISIBLE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_LINE_BREAKS}\ud800-\udfff]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control, bidirectional, zero-width and line-separator character and
    every lone surrogate written as its escape (``\\u202e``); everything else as it is."""
    return _INVISIBLE.sub(_escape, text)


def is_elided(text: str) -> bool:
    """Whether :func:`elided` shortens ``text``."""
    return len(text) > HEAD + TAIL + len(ELLIPSIS)


def elided(text: str) -> str:
    """``text`` made :func:`visible`, its middle cut to ``…`` when it is longer than
    ``HEAD + TAIL`` characters (cut before escaping: the shown length stays bounded, and the
    cost is that of the kept ends, whatever the length of the value)."""
    if not is_elided(text):
        return visible(text)
    return visible(text[:HEAD]) + ELLIPSIS + visible(text[-TAIL:])


#: What log text keeps as it is: line ends (\n, \r) and tabs.
_IN_TEXT = re.compile(_INVISIBLE.pattern.replace("\x00-\x1f", "\x00-\x08\x0b\x0c\x0e-\x1f"))


def visible_text(text: str) -> str:
    """Log text made visible as :func:`visible` does, its line ends and tabs kept as they
    are (the event detail shows a message as written, but no character in it hides or
    turns the rest around)."""
    return _IN_TEXT.sub(_escape, text)

