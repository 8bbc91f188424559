"""Position helpers: the integer type positions fit in, for each position the first flagged
one at or after it inside its segment (a session of the corpus, a session's messages, one
log), and which positions lie in given spans."""

from __future__ import annotations

import numpy as np


def position_type(n: int) -> type:
    """The integer type of positions and counts among ``n`` events: 32 bits while they fit
    (half the memory of 64), else 64."""
    return np.int32 if n < 2**31 else np.int64


def next_flagged(flags: np.ndarray, ends: np.ndarray, dtype=np.int64) -> np.ndarray:
    """Index of the first flagged element at or after each position in its segment (the
    segment's end if none). ``ends`` are the segments' ends in order, the last one
    ``len(flags)``. Each segment's last element carries its end as a barrier, so a flag of
    the next segment never reaches back. (A running minimum over the elements reversed, held
    contiguous: over a reversed view numpy's accumulate is an order of magnitude slower;
    ``dtype=np.int32`` halves the memory where the positions fit.)"""
    n = len(flags)
    back = np.where(flags[::-1], np.arange(n - 1, -1, -1, dtype=dtype), np.iinfo(dtype).max)
    ends = np.asarray(ends)
    ends = ends[ends > 0]
    last = n - ends   # the place of each segment's last element in ``back``
    back[last] = np.minimum(back[last], ends)
    np.minimum.accumulate(back, out=back)
    return back[::-1].copy()


def in_spans(n: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """N: whether each position lies in one of the disjoint spans ``[lo[s], hi[s])`` (one a
    session: its view), without a position per event (a session of 3M events: 48 MB of
    temporaries less than comparing ``arange(n)`` with each event's span)."""
    edge = np.zeros(n + 1, dtype=np.int8)
    np.add.at(edge, lo, 1)
    np.add.at(edge, np.maximum(hi, lo), -1)
    return np.cumsum(edge[:-1], dtype=np.int8) > 0
