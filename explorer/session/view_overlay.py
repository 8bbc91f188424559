"""What a compaction preview lays over a session's turn tree: the contract between the
preview (``explorer.session.preview``) and the tree (``widgets.turn_tree_model``).

Rows are rows of the :func:`explorer.tokens.session_events.session_events` frame the tree shows, which are
also the indexes of the :class:`explorer.compaction.SessionLog` built from that frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: View errors an event can carry (STRATEGIES.md, "Metrics of one view").
VIEW_ERRORS = ("orphan_result", "orphan_call", "pair_split", "rejected")
VIEW_ERROR_TEXT = {
    "orphan_result": "In the view, this tool result has no call of its id before it.",
    "orphan_call": "In the view, this tool call has no result (or placeholder) after it.",
    "pair_split": "The cut falls between this tool call (dropped) and its result (kept).",
    "rejected": "The provider picked would reject the view's request here (PROVIDERS.md).",
}


@dataclass(frozen=True)
class SyntheticItem:
    """An item of the view that is not an event of the log (placeholder, summary, preview).

    ``after_row`` is the frame row it follows in the view (None: before every event);
    ``label`` is plain text for the tree, e.g. ``"placeholder RESULT for call_7"``.
    """

    after_row: int | None
    kind: str
    cost: int
    label: str


@dataclass(frozen=True)
class ViewOverlay:
    """One preview of one session: which rows the view keeps, what it adds, what it gets wrong."""

    strategy: str
    budget: int
    in_view: np.ndarray                                  # bool per frame row
    errors: dict[int, tuple[str, ...]] = field(default_factory=dict)  # row -> VIEW_ERRORS
    synthetic: tuple[SyntheticItem, ...] = ()
    metrics: dict = field(default_factory=dict)          # the metrics of STRATEGIES.md
    notes: dict[int, str] = field(default_factory=dict)  # row -> the provider's texts there
