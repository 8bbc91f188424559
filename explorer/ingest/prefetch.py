"""A reader's blocks made in a thread of their own while DuckDB types the block before.

Reading a file and splitting it into staged blocks is Python's work; typing a block is
DuckDB's, which lets go of the interpreter while it runs. Done one after the other, each
waits for the other; :func:`ahead` runs the making of the blocks in a thread, at most
``depth`` blocks ahead (so memory stays bounded by a few blocks), and gives them in their
order. Whatever the thread raises is raised where the block would have been taken; closing
the blocks (a stop, an error downstream) stops the thread and closes its iterator there.

Progress said while a block is made is said again, in order, where it is taken: the hooks
given by ingest (the window's progress bar among them) are only ever called from the
thread that runs the import.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from explorer.jobs import ProgressHook

T = TypeVar("T")

#: Blocks made ahead of the one being typed.
DEPTH = 2
_DONE = object()


def ahead(make: Callable[[ProgressHook | None], Iterator[T]],
          progress: ProgressHook | None = None, depth: int = DEPTH) -> Iterator[T]:
    """The items of ``make(hook)``, made in a thread up to ``depth`` ahead; ``progress`` is
    called with what ``hook`` was told, in this thread, before the item that followed it."""
    out: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    said: list[tuple[int, int]] = []

    def hook(done: int, total: int) -> None:
        said.append((done, total))

    def put(entry: tuple) -> bool:
        while not stop.is_set():
            try:
                out.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        items = None
        try:
            items = make(hook if progress is not None else None)
            for item in items:
                if not put(("item", _take(said), item)):
                    return
            put(("end", _take(said), _DONE))
        except BaseException as exc:  # noqa: BLE001 (raised again in the taker's thread)
            put(("error", _take(said), exc))
        finally:
            if items is not None and hasattr(items, "close"):
                items.close()

    worker = threading.Thread(target=run, name="ingest-ahead", daemon=True)
    worker.start()
    try:
        while True:
            kind, calls, value = out.get()
            for done, total in calls:
                progress(done, total)
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        worker.join()


def _take(said: list[tuple[int, int]]) -> list[tuple[int, int]]:
    calls = said[:]
    del said[:len(calls)]
    return calls
