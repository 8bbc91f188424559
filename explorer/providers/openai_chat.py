"""OpenAI Chat Completions rules (PROVIDERS.md): an assistant message's ``tool_calls``
answered by the run of ``tool`` messages right after it, and no other ``tool`` message."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import (
    Found,
    Messages,
    call_of_result,
    combine,
    matched,
    member,
    messages,
    per_item,
    per_message,
    result_of_call,
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
    return np.where(head >= ms.view_first_of(m), head, -1) if ms.count else m


def _run_end(ms: Messages, m: np.ndarray) -> np.ndarray:
    """Of non-tool messages ``m``: the last message of the run of tool messages after each
    (``m`` itself when none follows): the message before the next non-tool message or
    first message of a view."""
    bounds = np.flatnonzero((ms.role != TOOL_SPEAKER) | ms.first)
    at = np.searchsorted(bounds, m, side="right")
    return np.append(bounds, ms.count)[at] - 1


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    call_msg, result_msg = ms.of[calls], ms.of[results]
    head = _heads(ms)
    n_calls = ms.counts(req.calls_before)
    result_head = head[result_msg]
    in_run = (result_head >= 0) & (n_calls[np.maximum(result_head, 0)] > 0)
    parts = []
    partner = result_of_call(req)
    if partner is not None:
        answered = matched(partner, call_msg, result_head, in_run)
    else:
        answered = member(req, call_msg, calls, result_head[in_run], results[in_run], False)
    miss = calls[~answered]
    parts.append(per_message(rule("openai-chat.unanswered"), ms, miss, ms.of[miss],
                             ms.index, lambda m: m, lambda m: _run_end(ms, m)))
    partner = call_of_result(req)
    if partner is not None:
        foreign_flag = in_run & ~matched(partner, result_head, call_msg)
    else:
        foreign_flag = in_run.copy()
        foreign_flag[in_run] = ~member(req, result_head[in_run], results[in_run], call_msg,
                                      calls, False)
    foreign = results[foreign_flag]
    fh = head[ms.of[foreign]]
    parts.append(per_item(rule("openai-chat.foreign-id"), ms, foreign,
                          ms.index(ms.of[foreign]), fh, ms.of[foreign]))
    orphan = results[~in_run]
    om = ms.of[orphan]
    parts.append(per_item(rule("openai-chat.orphan"), ms, orphan, ms.index(om), om, om))
    return combine(parts)
