"""Replay per provider (REPLAY.md, "Figures"; PROVIDERS.md): whether each provider rejects
the request of each model call.

The replay does not import the providers (they are sibling stages): it is handed a
:class:`ReplayJudge`, which checks many requests at once as the views of one
:class:`~explorer.providers.request.Request` (``seg`` the call). Two shapes of request:

- memories of one session (:meth:`ReplayJudge.memories`): items with ``src`` (the log row,
  -1 for a synthetic item), ``kind`` and ``call`` (the log's call id code), any strategy;
- corpus stretches ``[lo, hi)`` (:meth:`ReplayJudge.stretches`): the memories of M0 and M1,
  which are one stretch of their session's events, for ``sweep --trigger``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.compaction.log import CALL, RESULT, SYSTEM
from explorer.providers import check
from explorer.providers.request import Request, _body, _request, dense_ids, id_texts
from explorer.providers.rules import PROVIDERS
from explorer.providers.sweep_figures import figure_name

#: At most this many items are checked in one request (the rest in further ones).
CHUNK = 1_000_000


class ReplayJudge:
    """The providers asked (PROVIDERS.md's order) and their figures ``rejected_<p>``."""

    def __init__(self, providers=PROVIDERS) -> None:
        self.providers = tuple(p for p in PROVIDERS if p in providers)
        self.names = tuple(figure_name(p) for p in self.providers)

    def __bool__(self) -> bool:
        return bool(self.providers)

    def verdicts(self, req: Request) -> dict[str, np.ndarray]:
        """Per figure, per view of ``req``: the provider rejects it."""
        found = check(req, self.providers)
        return {figure_name(p): f.rejected(req.views) for p, f in found.items()}

    def memories(self, log, count: int, memory_of) -> dict[str, np.ndarray]:
        """Per figure, per memory ``memory_of(j)`` of ``log`` (j < ``count``): the provider
        rejects it. The memories are read a chunk at a time."""
        out = {name: np.zeros(count, dtype=bool) for name in self.names}
        lo = 0
        while lo < count:
            chunk, size = [], 0
            while lo + len(chunk) < count and (not chunk or size < CHUNK):
                chunk.append(memory_of(lo + len(chunk)))
                size += len(chunk[-1])
            for name, v in self.verdicts(from_memories(log, chunk)).items():
                out[name][lo:lo + len(chunk)] = v
            lo += len(chunk)
        return out

    def stretches(self, c, lo: np.ndarray, hi: np.ndarray) -> dict[str, np.ndarray]:
        """Per figure, per stretch ``[lo, hi)`` of corpus ``c``: the provider rejects it.

        Verdicts are kept on the corpus by (lo, hi): the replays of other triggers,
        strategies and budgets share many memories (all of them before their first
        compaction), which are checked once."""
        lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
        memo = c.__dict__.setdefault("_replay_verdicts", {})
        keys, known = memo.get(self.providers, (np.zeros(0, dtype=np.int64),
                                                np.zeros((len(self.names), 0), dtype=bool)))
        key = lo * (len(c.kind) + 1) + hi
        at = np.minimum(np.searchsorted(keys, key), max(len(keys) - 1, 0))
        found = (keys[at] == key) if len(keys) else np.zeros(len(key), dtype=bool)
        out = np.zeros((len(self.names), len(key)), dtype=bool)
        if len(keys):
            out[:, found] = known[:, at[found]]
        todo = np.flatnonzero(~found)
        if len(todo):
            new_keys, first = np.unique(key[todo], return_index=True)
            fresh = self._check_stretches(c, lo[todo][first], hi[todo][first])
            out[:, todo] = fresh[:, np.searchsorted(new_keys, key[todo])]
            merged = np.concatenate([keys, new_keys])
            order = np.argsort(merged, kind="stable")
            memo[self.providers] = (merged[order], np.concatenate([known, fresh], axis=1)[:, order])
        return {name: out[i] for i, name in enumerate(self.names)}

    def _check_stretches(self, c, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Per figure (rows), per stretch: rejected; a chunk of stretches at a time."""
        out = np.zeros((len(self.names), len(lo)), dtype=bool)
        ends = np.cumsum(np.maximum(hi - lo, 0))
        a = 0
        while a < len(lo):
            b = max(a + 1, int(np.searchsorted(ends, (ends[a - 1] if a else 0) + CHUNK,
                                               side="right")))
            for i, v in enumerate(self.verdicts(from_stretches(c, lo[a:b], hi[a:b])).values()):
                out[i, a:b] = v
            a = b
        return out


def from_memories(log, memories: Sequence) -> Request:
    """The requests of ``memories`` of ``log`` as the views of one request, in order."""
    lengths = np.array([len(m) for m in memories], dtype=np.int64)
    views = len(memories)
    if views and lengths.sum():
        src = np.concatenate([m.src for m in memories]).astype(np.int64)
        kind = np.concatenate([m.kind for m in memories]).astype(np.int64)
        call = np.concatenate([m.call for m in memories]).astype(np.int64)
    else:
        src = kind = call = np.zeros(0, dtype=np.int64)
    seg = np.repeat(np.arange(views, dtype=np.int64), lengths)
    system = np.bincount(seg[kind == SYSTEM], minlength=views) > 0
    synthetic = src < 0
    code = np.where(((kind == CALL) | (kind == RESULT)) & (call >= 0), call, -1)
    at = np.where(synthetic, 0, src)
    seq = np.where(synthetic, -1, log.seq[at] if log.n else -1).astype(np.int64)
    sub = np.where(synthetic, -1, log.sub[at] if log.n else -1).astype(np.int64)
    code, first = per_view_codes(seg, code)
    texts = id_texts(log)
    return _request(kind, code, synthetic, seg, src, views, system,
                    [texts[c] for c in first.tolist()], seq, sub)


def from_stretches(c, lo: np.ndarray, hi: np.ndarray) -> Request:
    """The stretches ``[lo, hi)`` of corpus positions (each within one session) as the
    views of one request (a view per stretch, in order)."""
    body, systems = _body(c)
    views = len(lo)
    system = systems[hi] - systems[np.minimum(lo, hi)] > 0
    a, b = np.searchsorted(body, lo), np.searchsorted(body, hi)
    sizes = np.maximum(b - a, 0)
    starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    picks = np.repeat(a - starts, sizes) + np.arange(int(sizes.sum()))
    g = body[picks]
    kind = c.kind[g].astype(np.int64)
    seg = np.repeat(np.arange(views, dtype=np.int64), sizes)
    code, _ = per_view_codes(seg, dense_ids(c)[g])
    return Request(kind, code, np.zeros(len(g), dtype=bool), seg, g, views, system)


def per_view_codes(seg: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Call id codes numbered afresh per view: one code per (view, id), -1 kept; and the
    old code of each new one. A rule compares ids within a view only, so its verdicts do
    not change; but the replay's views overlap (a CALL is in the request of every call
    until it is compacted away), and with the log's codes an id recurs across the views of
    a batch, which sends the providers' membership tests from an array indexed by code to
    a sort of (view, id) keys."""
    has = np.flatnonzero(code >= 0)
    out = np.full(len(code), -1, dtype=np.int64)
    if not len(has):
        return out, np.zeros(0, dtype=np.int64)
    width = int(code[has].max()) + 1
    pairs, out[has] = np.unique(seg[has] * width + code[has], return_inverse=True)
    return out, pairs % width
