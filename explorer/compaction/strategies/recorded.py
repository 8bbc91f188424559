"""The view a log recorded for itself (STRATEGIES.md, "Recorded"); the budget plays no part."""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import SUMMARY
from explorer.compaction.positions import in_spans
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies.decision import Decision, Family


def recorded(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """The events not archived, where a session has archived ones; else from its latest
    SUMMARY on; else the whole session. SYSTEM is not pinned."""
    sessions = len(c.start)
    any_archived = np.bincount(c.session[c.archived], minlength=sessions) > 0
    latest = c.start.copy()
    summaries = np.flatnonzero(c.kind == SUMMARY)
    np.maximum.at(latest, c.session[summaries], summaries)
    cut = np.where(any_archived, c.start, latest)
    decision = Decision(cut, cut, np.zeros(sessions, dtype=bool))
    if any_archived.any():  # a membership mask only where it is needed: else a suffix
        decision.mask = np.where(any_archived[c.session], ~c.archived,
                                 in_spans(len(c.kind), cut, c.ends))
    return decision


FAMILIES = (
    Family("recorded", "recorded", "The view the log recorded for itself (archived events or "
           "the latest summary); the budget plays no part.", recorded),
)
