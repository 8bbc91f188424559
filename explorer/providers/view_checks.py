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

from explorer.providers import Violation, check, violations
from explorer.providers.found import Found
from explorer.providers.request import Request, from_window, from_windows
from explorer.providers.rules import PROVIDERS

#: How many views' counts, and how many views' full verdicts (their requests: about 100
#: bytes an event), a log keeps; a big log keeps fewer verdicts (down to the view shown and
#: the one before).
COUNTS_KEPT, VERDICTS_KEPT, VERDICT_EVENTS = 256, 8, 2_000_000
# the compare table is computed off the GUI thread for big logs, the preview on it
_LOCK = threading.Lock()


def _verdicts_kept(log) -> int:
    return max(2, min(VERDICTS_KEPT, VERDICT_EVENTS // max(log.n, 1)))


def view_key(log, w, keep: np.ndarray) -> tuple:
    """What decides a window's request: the rows that reach the messages (the cut, or a
    digest of the mask), whether a SYSTEM event is in view, and the synthetic items. Two
    strategies whose views differ only in SYSTEM rows kept before the cut (``pinned``)
    send the same request when the log has none there."""
    systems = _systems(log)
    if w.mask is None:
        cut = int(w.cut)
        system = bool(systems[-1] - systems[min(cut, log.n)] or (w.pinned and systems[cut]))
        rows: object = cut
    else:
        system = bool((keep & log.is_system).any())
        rows = hashlib.blake2b(np.packbits(keep & ~log.is_system).tobytes(),
                               digest_size=16).digest()
    return rows, system, tuple(kind for kind, _ in w.front), \
        tuple(int(p) for p in w.placeholders)


def _systems(log) -> np.ndarray:
    """The running count of SYSTEM events before each row (n + 1 values), kept on the log."""
    systems = log.__dict__.get("_provider_systems")
    if systems is None:
        systems = np.zeros(log.n + 1, dtype=np.int64)
        np.cumsum(log.is_system, out=systems[1:])
        log.__dict__["_provider_systems"] = systems
    return systems


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
    keys = [view_key(log, w, keep) for w, keep in zip(windows, keeps)]
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
    key = view_key(log, w, keep)
    entry = _get(memo, key)
    if entry is None:
        entry = (from_window(log, w, keep), {})
    req, found = entry
    missing = tuple(p for p in asked if p not in found)
    if missing:
        found = {**found, **check(req, missing)}
        _put(memo, key, (req, found), _verdicts_kept(log))
        counts = _memo(log, "_provider_counts")
        _put(counts, key, {**(_get(counts, key) or {}), **{p: len(f) for p, f in found.items()}},
             COUNTS_KEPT)
    return req, {p: found[p] for p in asked}


def spelled(log, w, keep: np.ndarray, provider: str) -> tuple[Request, tuple[Violation, ...]]:
    """The request of one window's view and ``provider``'s violations spelt out
    (:func:`explorer.providers.violations`), from the memo when the view was seen: the
    ``recorded`` view's on every slider move, however many they are."""
    memo = _memo(log, "_provider_spelled")
    key = (view_key(log, w, keep), provider)
    entry = _get(memo, key)
    if entry is None:
        req, found = checked(log, w, keep, (provider,))
        entry = (req, tuple(violations(req, found[provider])))
        _put(memo, key, entry, _verdicts_kept(log))
    return entry
