"""The one "next flagged position" helper: for each position, the first flagged one at or
after it inside its segment (a session of the corpus, a session's messages, one log)."""

from __future__ import annotations

import numpy as np


def next_flagged(flags: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Index of the first flagged element at or after each position in its segment (the
    segment's end if none). ``ends`` are the segments' ends in order, the last one
    ``len(flags)``. Each segment's last element carries its end as a barrier, so a flag of
    the next segment never reaches back."""
    g = np.arange(len(flags))
    marks = np.where(flags, g, np.iinfo(np.int64).max)
    ends = np.asarray(ends)
    last = ends[ends > 0] - 1
    marks[last] = np.minimum(marks[last], ends[ends > 0])
    return np.minimum.accumulate(marks[::-1])[::-1] if len(g) else marks
