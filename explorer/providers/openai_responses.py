"""OpenAI Responses API rules (PROVIDERS.md): over the whole input, every
``function_call`` has a later output of its id and every output an earlier call."""

from __future__ import annotations

import numpy as np

from explorer.providers.found import (
    Found,
    Messages,
    call_of_result,
    combine,
    per_item,
    result_of_call,
)
from explorer.providers.request import Request
from explorer.providers.rules import rule


def messages_of(req: Request) -> Messages:
    """Every item is one input item (numbered from its view's first)."""
    return Messages(np.arange(req.n), np.arange(req.n + 1), req.seg, req.speaker,
                    req.new_view)


def check(req: Request) -> Found:
    ms = messages_of(req)
    if (req.views == 1 or req.codes_by_view) and req.calls_unique and req.results_unique:
        no_output, no_call = _unique_ids(req)
    else:
        no_output, no_call = _any_ids(req)
    return combine([
        per_item(rule("openai-responses.no-output"), ms, no_output, ms.index(no_output),
                 no_output, no_output),
        per_item(rule("openai-responses.no-call"), ms, no_call, ms.index(no_call), no_call,
                 no_call)])


def _unique_ids(req: Request) -> tuple[np.ndarray, np.ndarray]:
    """An id on one CALL and one RESULT at most, its code its view's alone: the output of a
    call is the one RESULT of its code, and the call of an output the one CALL of its code
    (the partners the other providers' tests share)."""
    calls, results = req.calls, req.results
    output, call = result_of_call(req), call_of_result(req)
    output = np.where(output >= 0, results[np.maximum(output, 0)], -1) if len(results) \
        else output
    call = np.where(call >= 0, calls[np.maximum(call, 0)], -1) if len(calls) else call
    return calls[output < calls], results[(call < 0) | (call > results)]


def _any_ids(req: Request) -> tuple[np.ndarray, np.ndarray]:
    """Any request: the last output and first call of each (view, id)."""
    calls, results = req.calls, req.results
    if req.views == 1 or req.codes_by_view:   # an id's code is its view's alone
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
    return calls[last_output[group_of[calls]] < calls], \
        results[first_call[group_of[results]] > results]
