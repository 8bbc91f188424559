"""AgentScope harness compaction of STRATEGIES.md: agentscope (message mode) and
agentscope-tokens (token mode). SYSTEM pinned, one synthetic SUMMARY, no turn alignment."""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import RESULT
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies.decision import Argument, Decision, Family
from explorer.compaction.strategies.messages import Messages, at, bound, messages, pinned


def _repaired(c: Corpus, ms: Messages, nothing, m) -> np.ndarray:
    """The cut message after the RESULT-only repair of STRATEGIES.md.

    "If the message at the cut holds only RESULTs, take the call ids of the run of such
    messages starting there and move the cut back to the nearest (latest) earlier message
    holding a CALL with one of those ids, or, when there is none, forward past that run."
    The run holds no CALL, so each RESULT's nearest earlier CALL of its id (prev_call) lies
    before the run; the latest of their messages is the one to move back to.
    """
    inside = m < ms.msg_off[1:]
    run_end = np.where(inside, at(ms.run_end, m), m)
    needs = ~nothing & inside & (run_end > m)
    if not needs.any():
        return m
    span_lo, span_hi = bound(c, ms, m), bound(c, ms, run_end)
    g = np.flatnonzero((c.kind == RESULT) & (c.prev_call >= 0))
    s = c.session[g]
    in_span = needs[s] & (g >= span_lo[s]) & (g < span_hi[s])
    g, s = g[in_span], s[in_span]
    back = np.full(len(m), -1, dtype=np.int64)
    np.maximum.at(back, s, ms.msg_no[c.prev_call[g]])
    return np.where(needs, np.where(back >= 0, back, run_end), m)


def _summarized(c: Corpus, ms: Messages, nothing, m, summary_cost: int) -> Decision:
    """From the message at the raw cut: repair, then nothing (the final cut at the first
    message) or one SUMMARY after the pinned SYSTEM events, then the suffix; a cut past the
    last message leaves the SUMMARY (and SYSTEM events) as the whole view."""
    final = _repaired(c, ms, nothing, m)
    nothing = nothing | (final == ms.msg_off[:-1])
    decision = pinned(c, bound(c, ms, final), bound(c, ms, m), nothing)
    decision.front, decision.fronted = (("SUMMARY", summary_cost),), ~nothing
    return decision


def agentscope(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Message mode: from T messages on, the cut is before the last K messages (before the
    first message when K >= count)."""
    ms = messages(c)
    local = np.maximum(ms.count - args[1], 0)
    return _summarized(c, ms, ms.count < args[0], ms.msg_off[:-1] + local, settings.summary_cost)


def agentscope_tokens(c: Corpus, args: tuple, budget: int,
                      settings: CompactionSettings) -> Decision:
    """Token mode: the earliest message whose non-SYSTEM suffix fits B, at most count - 1."""
    ms = messages(c)
    # messages whose non-SYSTEM suffix is over B come first: count them per session
    over = np.r_[0, np.cumsum(ms.body_suffix_at(c, ms.starts) > budget)]
    fits = over[ms.msg_off[1:]] - over[ms.msg_off[:-1]]
    local = np.minimum(fits, np.maximum(ms.count - 1, 0))
    return _summarized(c, ms, ms.count < args[0], ms.msg_off[:-1] + local, settings.summary_cost)


_T = Argument("T", "T messages", "Compaction starts at T messages.", 50)
FAMILIES = (
    Family("agentscope", "agentscope:T:K", "AgentScope message mode: from T messages on, keeps "
           "the last K messages after a summary.", agentscope,
           (_T, Argument("K", "K messages", "Messages kept after the summary.", 20)),
           reads=("summary_cost",)),
    Family("agentscope-tokens", "agentscope-tokens:T", "AgentScope token mode: from T messages "
           "on, keeps the newest messages that fit the budget after a summary.",
           agentscope_tokens, (_T,), uses_budget=True, reads=("summary_cost",)),
)
