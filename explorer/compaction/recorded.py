"""The view a log recorded for itself (STRATEGIES.md, "Recorded"); the budget plays no part."""

from __future__ import annotations

import numpy as np

from explorer.compaction.log import SUMMARY, SessionLog
from explorer.compaction.window import Window


def recorded(log: SessionLog, budget: int) -> Window:
    """Events not archived, if any is; else from the latest SUMMARY on; else everything."""
    if log.archived.any():
        return Window(0, mask=~log.archived)
    summaries = np.flatnonzero(log.kind == SUMMARY)
    return Window(int(summaries[-1]) if len(summaries) else 0)
