"""OpenAI Chat Completions rules (PROVIDERS.md): an assistant message's ``tool_calls``
answered by the run of ``tool`` messages right after it, and no other ``tool`` message."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import (
    Found,
    Messages,
    combine,
    member,
    messages,
    per_item,
    per_message,
)
from explorer.providers.request import TOOL_SPEAKER, Request
from explorer.providers.rules import rule


def messages_of(req: Request) -> Messages:
    """Runs of user and of assistant items, each tool result a message; a view's SYSTEM
    items are one system message at index 0 (counted in N, not among these)."""
    change = np.ones(req.n, dtype=bool)
    if req.n > 1:
        change[1:] = req.speaker[1:] != req.speaker[:-1]
    change |= req.speaker == TOOL_SPEAKER
    return messages(req, change, req.speaker, req.system.astype(np.int64))


def _heads(ms: Messages) -> np.ndarray:
    """Per message, the last non-tool message at or before it in its view (-1: none)."""
    m = np.arange(ms.count)
    head = np.maximum.accumulate(np.where(ms.role != TOOL_SPEAKER, m, -1)) if ms.count else m
    view_first = np.maximum.accumulate(np.where(ms.first, m, 0)) if ms.count else m
    return np.where(head >= view_first, head, -1)


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    call_msg, result_msg = ms.of[calls], ms.of[results]
    head = _heads(ms)
    n_calls = ms.per_message(req.call)
    result_head = head[result_msg]
    in_run = (result_head >= 0) & (n_calls[np.maximum(result_head, 0)] > 0)
    # the last message of each call message's run of tool messages
    m = np.arange(ms.count)
    run_end = np.full(ms.count, -1, dtype=np.int64)
    np.maximum.at(run_end, np.maximum(head, 0), np.where(head >= 0, m, -1))
    parts = []
    answered = member(req, call_msg, calls, result_head[in_run], results[in_run],
                      req.results_unique)
    miss = calls[~answered]
    parts.append(per_message(rule("openai-chat.unanswered"), ms, miss, ms.of[miss],
                             lambda m: ms.number[m], lambda m: m, lambda m: run_end[m]))
    foreign_flag = in_run.copy()
    foreign_flag[in_run] = ~member(req, result_head[in_run], results[in_run], call_msg,
                                  calls, req.calls_unique)
    foreign = results[foreign_flag]
    fh = head[ms.of[foreign]]
    parts.append(per_item(rule("openai-chat.foreign-id"), ms, foreign,
                          ms.number[ms.of[foreign]], fh, ms.of[foreign]))
    orphan = results[~in_run]
    om = ms.of[orphan]
    parts.append(per_item(rule("openai-chat.orphan"), ms, orphan, ms.number[om], om, om))
    return combine(parts)
