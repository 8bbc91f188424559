"""Where the model calls of a session are (REPLAY.md, "Model calls")."""

from __future__ import annotations

import numpy as np

from explorer.compaction.log import ASSISTANT, CALL, OTHER, SYSTEM
from explorer.compaction.positions import position_type


def call_positions(kind: np.ndarray, message: np.ndarray) -> np.ndarray:
    """The event index ``i_j`` before which each model call ``j`` is made.

    A call happens before each ASSISTANT or CALL event whose previous event other than
    SYSTEM and OTHER is not an ASSISTANT or CALL, or is one with a different non-null
    ``message_id`` (``message``: codes, -1 for none; an event without an id after one
    with an id is such a difference, two events without ids are not)."""
    body = np.flatnonzero((kind != SYSTEM) & (kind != OTHER))
    k = kind[body]
    speaks = (k == ASSISTANT) | (k == CALL)
    prev_speaks = np.r_[False, speaks[:-1]]
    m = message[body]
    prev_m = np.r_[-1, m[:-1]]
    other_id = (prev_m >= 0) & (prev_m != m)
    # positions in 32 bits where they fit (a session of 3M events: 1.5M calls, 6 MB less)
    return body[speaks & (~prev_speaks | other_id)].astype(position_type(len(kind)))
