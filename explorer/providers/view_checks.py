"""The provider checks of one session's views as the window asks for them: the previewed
view on every slider move, every strategy's view when the compare table refreshes.

Each distinct view is checked once: a small memo kept on the log, keyed by what the view
holds (its cut, or its mask, and its synthetic items), answers a view seen before (the
``recorded`` view at every budget, the strategies whose views coincide, the previewed
view when the table refreshes). The views not yet checked are checked together, as one
request of several views (:func:`~explorer.providers.request.from_windows`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from explorer.providers import check
from explorer.providers.found import Found
from explorer.providers.request import Request, from_window, from_windows
from explorer.providers.rules import PROVIDERS

#: How many views' counts, and how many views' full verdicts, a log keeps.
COUNTS_KEPT, VERDICTS_KEPT = 256, 8
# the compare table is computed off the GUI thread for big logs, the preview on it
_LOCK = threading.Lock()


def view_key(w, keep: np.ndarray) -> tuple:
    """What decides a window's request: its rows (the cut and whether SYSTEM rows before it
    stay, or a digest of its mask) and its synthetic items."""
    if w.mask is None:
        rows = (int(w.cut), bool(w.pinned))
    else:
        rows = hashlib.blake2b(np.packbits(keep).tobytes(), digest_size=16).digest()
    return rows, tuple(kind for kind, _ in w.front), tuple(int(p) for p in w.placeholders)


def _memo(log, name: str) -> OrderedDict:
    with _LOCK:
        return log.__dict__.setdefault(name, OrderedDict())


def _get(memo: OrderedDict, key):
    with _LOCK:
        value = memo.get(key)
        if value is not None:
            memo.move_to_end(key)
        return value


def _put(memo: OrderedDict, key, value, size: int) -> None:
    with _LOCK:
        memo[key] = value
        memo.move_to_end(key)
        while len(memo) > size:
            memo.popitem(last=False)


def error_counts(log, windows, keeps, providers=PROVIDERS) -> list[dict[str, int]]:
    """Per window (``keeps``: their :func:`~explorer.compaction.window.in_view`), per
    provider asked: how many violations its view has (0: accepted)."""
    asked = tuple(p for p in PROVIDERS if p in providers)
    if not asked:
        return [{} for _ in windows]
    memo = _memo(log, "_provider_counts")
    keys = [view_key(w, keep) for w, keep in zip(windows, keeps)]
    known = {k: v for k in set(keys) if (v := _get(memo, k)) is not None
             and all(p in v for p in asked)}
    todo: dict = {}
    for i, k in enumerate(keys):
        if k not in known and k not in todo:
            todo[k] = i
    if todo:
        picked = list(todo.values())
        req = from_windows(log, [windows[i] for i in picked], [keeps[i] for i in picked])
        found = check(req, asked)
        counts = {p: np.bincount(f.seg, minlength=len(picked)).tolist()
                  for p, f in found.items()}
        for j, k in enumerate(todo):
            known[k] = {p: counts[p][j] for p in asked}
            _put(memo, k, known[k], COUNTS_KEPT)
    return [{p: known[k][p] for p in asked} for k in keys]


def checked(log, w, keep: np.ndarray, providers=PROVIDERS) -> tuple[Request, dict[str, Found]]:
    """The request of one window's view and, per provider asked, its violations (as
    :func:`explorer.providers.check` gives them), from the memo when the view was seen."""
    asked = tuple(p for p in PROVIDERS if p in providers)
    memo = _memo(log, "_provider_verdicts")
    key = view_key(w, keep)
    entry = _get(memo, key)
    if entry is None:
        entry = (from_window(log, w, keep), {})
    req, found = entry
    missing = tuple(p for p in asked if p not in found)
    if missing:
        found = {**found, **check(req, missing)}
        _put(memo, key, (req, found), VERDICTS_KEPT)
        counts = _memo(log, "_provider_counts")
        _put(counts, key, {**(_get(counts, key) or {}), **{p: len(f) for p, f in found.items()}},
             COUNTS_KEPT)
    return req, {p: found[p] for p in asked}
