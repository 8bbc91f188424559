"""What Qt is started with: a UTF-8 locale, and a message filter that drops the one warning
every offscreen window prints (its plugin cannot pass size hints on; nothing is wrong)."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

from PySide6.QtCore import (
    QMessageLogContext,
    QtMsgType,
    qFormatLogMessage,
    qInstallMessageHandler,
)

#: Messages that say nothing to the user, dropped exactly as Qt words them.
DROPPED = frozenset({"This plugin does not support propagateSizeHints()"})

_installed = False
_previous = None


def use_utf8_locale(environ: MutableMapping[str, str] = os.environ) -> None:
    """Under the C or POSIX locale (``LC_ALL=C``, or nothing set) Qt warns that it needs UTF-8
    and switches its character type to C.UTF-8 itself: make that switch first, so it does
    not have to. Call before the QApplication is made. Other locales are left as they are."""
    if not sys.platform.startswith("linux"):
        return
    name = next((n for n in ("LC_ALL", "LC_CTYPE", "LANG") if environ.get(n)), None)
    if name is None or environ[name] in ("C", "POSIX"):
        environ["LC_ALL" if name == "LC_ALL" else "LC_CTYPE"] = "C.UTF-8"


def _on_message(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if message in DROPPED:
        return
    if _previous is not None:  # a handler installed before (pytest-qt's, say) gets the rest
        _previous(mode, context, message)
    else:
        print(qFormatLogMessage(mode, context, message), file=sys.stderr, flush=True)


def install_message_filter() -> None:
    """Pass Qt's messages on, but for :data:`DROPPED`, to the handler installed before or,
    when there is none, to stderr as Qt prints them (``QT_MESSAGE_PATTERN`` applies)."""
    global _previous, _installed
    if not _installed:
        _previous = qInstallMessageHandler(_on_message)
        _installed = True
