"""Long work that reports progress and can be stopped: the hooks every long function takes,
and the one exception that says the user stopped it.

A long function takes ``progress(done, total)`` and ``should_stop()``, both optional; once
``should_stop()`` turns true it ends what it was doing as if it had not begun (a transaction
rolled back, a table left as it was) and raises :class:`Cancelled`. The window's workers
(``widgets/workers.py``) and the command line pass these hooks; nothing here knows of either.
"""

from __future__ import annotations

from typing import Callable

#: ``progress(done, total)``: how far the work is; ``total`` may change as it goes.
ProgressHook = Callable[[int, int], None]
#: ``should_stop()``: whether the user asked the work to stop.
StopHook = Callable[[], bool]


class Cancelled(Exception):
    """The user stopped the work; what it was writing was rolled back. The message names
    what was stopped (a file, "token counts", "audit (seq)")."""


def check(should_stop: StopHook | None, what: str) -> None:
    """Raise :class:`Cancelled` (naming ``what``) once the user asked to stop."""
    if should_stop is not None and should_stop():
        raise Cancelled(what)
