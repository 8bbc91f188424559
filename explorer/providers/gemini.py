"""Gemini generateContent rules (PROVIDERS.md): a function call turn answered by a function
response turn of as many parts right after it, and each turn kind where it may stand."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import Found, Messages, combine, per_message, runs
from explorer.providers.request import ASSISTANT_SPEAKER, TOOL_SPEAKER, Request
from explorer.providers.rules import rule


def messages_of(req: Request) -> Messages:
    """Turns: runs of user, model and function response items."""
    return runs(req, req.speaker)


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    m = np.arange(ms.count)
    k = ms.counts(req.calls_before)
    sizes = np.diff(ms.start)
    nxt, prv = np.minimum(m + 1, max(ms.count - 1, 0)), np.maximum(m - 1, 0)
    next_ok, prev_ok = ms.next_ok(m), ms.prev_ok(m)
    answer = np.where(next_ok & (ms.role[nxt] == TOOL_SPEAKER), sizes[nxt], 0)
    call_turn = (ms.role == ASSISTANT_SPEAKER) & (k > 0)
    count_bad = call_turn & (answer != k)
    after_call = prev_ok & call_turn[prv]
    order_bad = (ms.role == TOOL_SPEAKER) & ~after_call
    call_bad = call_turn & ~(prev_ok & (ms.role[prv] != ASSISTANT_SPEAKER))
    number = ms.index
    same = lambda t: t
    back = lambda t: np.where(ms.prev_ok(t), t - 1, t)
    ahead = lambda t: np.where(ms.next_ok(t), t + 1, t)
    c1 = calls[count_bad[ms.of[calls]]]
    r2 = results[order_bad[ms.of[results]]]
    c3 = calls[call_bad[ms.of[calls]]]
    return combine([
        per_message(rule("gemini.count"), ms, c1, ms.of[c1], number, same, ahead),
        per_message(rule("gemini.response-order"), ms, r2, ms.of[r2], number, back, same),
        per_message(rule("gemini.call-order"), ms, c3, ms.of[c3], number, back, same)])
