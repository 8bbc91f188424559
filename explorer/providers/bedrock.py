"""Amazon Bedrock's Converse API rules (PROVIDERS.md): ``toolUse`` answered anywhere in
the next message, no more results than the previous turn's calls, ids unique within a
message, a user message first. Its messages are Anthropic's."""

from __future__ import annotations

import numpy as np

from explorer.providers.anthropic import messages_of
from explorer.providers.found import (
    Found,
    combine,
    found,
    matched,
    member,
    per_message,
    repeats,
    result_of_call,
)
from explorer.providers.request import ASSISTANT_SPEAKER, USER_SPEAKER, Request
from explorer.providers.rules import rule


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    call_msg, result_msg = ms.of[calls], ms.of[results]
    nxt = lambda m: np.where(ms.next_ok(m), m + 1, m)
    prv = lambda m: np.where(ms.prev_ok(m), m - 1, m)
    parts = []
    # expected: toolUse ids of message N without a toolResult anywhere in N+1
    partner = result_of_call(req)
    if partner is not None:
        answered = ms.next_ok(call_msg) & matched(partner, call_msg + 1, result_msg)
    else:
        answered = ms.next_ok(call_msg) & member(req, call_msg + 1, calls, result_msg,
                                                 results, False)
    miss = calls[~answered]
    parts.append(per_message(rule("bedrock.expected"), ms, miss, ms.of[miss],
                             lambda m: ms.index(m) + 1, lambda m: m, nxt))
    # exceeds: more toolResult blocks than the previous assistant message's toolUse blocks
    n_calls, n_results = ms.counts(req.calls_before), ms.counts(req.results_before)
    before = ms.from_prev(np.where(ms.role == ASSISTANT_SPEAKER, n_calls, 0), 0)
    items = results[(n_results > before)[result_msg]]
    parts.append(per_message(rule("bedrock.exceeds"), ms, items, ms.of[items],
                             ms.index, prv, lambda m: m))
    # duplicate: two toolUse blocks with one id in one message
    dup = calls[repeats(req, call_msg, calls, req.calls_unique)]
    parts.append(per_message(rule("bedrock.duplicate"), ms, dup, ms.of[dup],
                             ms.index, lambda m: m, lambda m: m))
    # first-user: message 0 is not a user message
    first = np.flatnonzero(ms.first & (ms.role != USER_SPEAKER))
    parts.append(found(rule("bedrock.first-user"), ms.seg[first], ms.index(first), None,
                       ms.start[first], ms.start[first + 1]))
    return combine(parts)
