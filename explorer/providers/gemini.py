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
    k = ms.counts(req.calls_before)
    role = ms.role
    tool = role == TOOL_SPEAKER
    answer = ms.from_next(np.where(tool, np.diff(ms.start), 0), 0)
    call_turn = (role == ASSISTANT_SPEAKER) & (k > 0)
    count_bad = call_turn & (answer != k)
    order_bad = tool & ~ms.from_prev(call_turn, False)
    call_bad = call_turn & ~ms.from_prev(role != ASSISTANT_SPEAKER, False)
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
