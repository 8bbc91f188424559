"""OpenAI Responses API rules (PROVIDERS.md): over the whole input, every
``function_call`` has a later output of its id and every output an earlier call."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import Found, Messages, combine, per_item
from explorer.providers.request import Request
from explorer.providers.rules import rule


def messages_of(req: Request) -> Messages:
    """Every item is one input item (numbered from its view's first)."""
    at = np.arange(req.n)
    if req.views == 1:
        number = at
    else:
        number = at - np.maximum.accumulate(np.where(req.new_view, at, 0)) if req.n else at
    return Messages(at, np.arange(req.n + 1), req.seg, req.speaker, number, req.new_view)


def check(req: Request) -> Found:
    ms = messages_of(req)
    calls, results = req.calls, req.results
    if req.views == 1:   # one view: the id is the group
        group_of, groups = req.code, req.ncodes
    else:
        has = req.call | req.result
        keys, group = np.unique(req.key(req.seg[has], np.flatnonzero(has)), return_inverse=True)
        group_of, groups = np.full(req.n, -1, dtype=np.int64), len(keys)
        group_of[has] = group.ravel()
    last_output = np.full(groups, -1, dtype=np.int64)
    np.maximum.at(last_output, group_of[results], results)
    first_call = np.full(groups, req.n, dtype=np.int64)
    np.minimum.at(first_call, group_of[calls], calls)
    no_output = calls[last_output[group_of[calls]] < calls]
    no_call = results[first_call[group_of[results]] > results]
    return combine([
        per_item(rule("openai-responses.no-output"), ms, no_output, ms.number[no_output],
                 no_output, no_output),
        per_item(rule("openai-responses.no-call"), ms, no_call, ms.number[no_call], no_call,
                 no_call)])
