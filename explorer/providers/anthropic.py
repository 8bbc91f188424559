"""Anthropic's Messages API rules (PROVIDERS.md): ``tool_use`` answered by leading
``tool_result`` blocks of the next message, results matching the previous message, ids
unique. Bedrock's Converse API builds the same messages (:func:`messages_of`)."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import (
    Found,
    Messages,
    call_of_result,
    combine,
    matched,
    member,
    per_item,
    per_message,
    repeats,
    result_of_call,
    runs,
)
from explorer.providers.request import ASSISTANT_SPEAKER, TOOL_SPEAKER, USER_SPEAKER, Request
from explorer.providers.rules import rule


def messages_of(req: Request) -> Messages:
    """Runs of one role, a tool result being a user block (kept on ``req``: Bedrock's too)."""
    cached = req.__dict__.get("_anthropic_messages")
    if cached is None:
        role = np.where(req.speaker == TOOL_SPEAKER, USER_SPEAKER, req.speaker)
        cached = req.__dict__["_anthropic_messages"] = runs(req, role)
    return cached


def _leading(req: Request, ms: Messages, result_msg: np.ndarray) -> np.ndarray:
    """Per RESULT of ``req.results``: it is before the first block of another kind in its
    message (every item from its message's start to it is a RESULT; the j-th RESULT has j
    before it)."""
    start = ms.start[result_msg]
    return np.arange(len(result_msg)) - req.results_before[start] == req.results - start


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    call_msg, result_msg = ms.of[calls], ms.of[results]
    parts = []
    # unanswered: CALL ids of message N without a leading result in N+1
    leading = _leading(req, ms, result_msg)
    has_next = ms.next_ok(call_msg)
    partner = result_of_call(req)
    if partner is not None:
        answered = has_next & matched(partner, call_msg + 1, result_msg, leading)
    else:
        lead = results[leading]
        answered = has_next & member(req, call_msg + 1, calls, ms.of[lead], lead, False)
    miss = calls[~answered]
    parts.append(per_message(rule("anthropic.unanswered"), ms, miss, ms.of[miss],
                             ms.index, lambda m: m,
                             lambda m: np.where(ms.next_ok(m), m + 1, m)))
    # unexpected: a result whose id is no tool_use of message N-1
    has_prev = ms.prev_ok(result_msg)
    partner = call_of_result(req)
    if partner is not None:
        ok = has_prev & matched(partner, result_msg - 1, call_msg)
    else:
        ok = has_prev & member(req, result_msg - 1, results, call_msg, calls, False)
    bad = results[~ok]
    bad_msg = ms.of[bad]
    parts.append(per_item(rule("anthropic.unexpected"), ms, bad, ms.index(bad_msg),
                          np.where(ms.prev_ok(bad_msg), bad_msg - 1, bad_msg), bad_msg, True))
    # duplicate: a tool_use id seen earlier in the request
    dup = calls[repeats(req, req.seg[calls], calls, req.calls_unique)]
    dup_msg = ms.of[dup]
    parts.append(per_item(rule("anthropic.duplicate"), ms, dup, ms.index(dup_msg), dup_msg,
                          dup_msg, True))
    # multiple results: a second tool_result of one id in one user message
    again = results[repeats(req, result_msg, results, req.results_unique)]
    again_msg = ms.of[again]
    parts.append(per_item(rule("anthropic.multiple-results"), ms, again,
                          ms.index(again_msg), again_msg, again_msg, True))
    return combine(parts)


__all__ = ["ASSISTANT_SPEAKER", "check", "messages_of"]
