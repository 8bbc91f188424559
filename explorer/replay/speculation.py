"""Many compactions decided at once, on the guess that they change nothing.

Most compactions a trigger asks for leave the memory as it is (under ``always``, two calls
in three on a long session): the strategy's view of the memory is the memory. Between two
compactions that change it, the memory of each call is the last one plus the events
appended since, so the memories of the next calls are known in advance on that guess.
:func:`first_change` reads them as the sessions of one corpus (a memory read as a log, as
:func:`explorer.replay.memory.compact` reads it, one per session) and makes one corpus
decision for all: the first memory the decision changes is where the guess ends (that
compaction is then made the reference way); the memories before it are kept as they are.

"Changes nothing" is claimed only where it is sure: every item in view, nothing written
(no front items, no placeholder), the view's order the memory's (its pinned items a
prefix), and for ``spring-*`` the earlier synthetic items where compact would pin them again.
Anything else counts as a change, which the reference compaction then decides.
"""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus, pair_order
from explorer.compaction.log import CALL, RESULT, SYSTEM, SessionLog, pairs_in_groups
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.model import KINDS
from explorer.replay.memory import Memory

_KIND_CODES = {k: i for i, k in enumerate(KINDS)}


def first_change(log: SessionLog, memories: list[Memory], strategy: Strategy, budget: int,
                 settings: CompactionSettings) -> int:
    """The index of the first of ``memories`` that a compaction by ``strategy`` may change
    (``len(memories)``: none does)."""
    return _first(log, memories, strategy, budget, settings)[0]


def decided(log: SessionLog, memories: list[Memory], strategy: Strategy, budget: int,
            settings: CompactionSettings) -> tuple[int, Memory | None]:
    """:func:`first_change` and the memory that compaction of that memory gives (None when
    none changes), read off the same corpus decision."""
    first, c, d = _first(log, memories, strategy, budget, settings)
    if first == len(memories):
        return first, None
    return first, _view(memories[first], first, c, d, strategy, settings)


def _view(m: Memory, s: int, c: Corpus, d, strategy: Strategy,
          settings: CompactionSettings) -> Memory:
    """What :func:`explorer.replay.memory.compact` makes of ``m``, session ``s`` of ``c``
    under decision ``d``: the view's items in the order of ``window.view_items`` (pinned
    items, front items, the rest with each placeholder after its CALL), then for
    ``spring-*`` the earlier synthetic items pinned again."""
    spring = strategy.family.startswith("spring-")
    body = m.take(~m.synthetic) if spring else m
    a, b = int(c.offsets[s]), int(c.offsets[s + 1])
    kept = np.flatnonzero(d.in_view(c)[a:b])
    cut = int(d.cut[s]) - a
    masked = d.mask is not None or (d.preamble_end is not None and d.preamble_end[s] > a)
    if not masked:
        head = kept < cut
    elif d.pinned:
        head = (kept < cut) & (body.kind[kept] == SYSTEM)
    else:
        head = np.zeros(len(kept), dtype=bool)
    pinned, rest = body.take(kept[head]), body.take(kept[~head])
    front = d.front if d.fronted is not None and d.fronted[s] else ()
    if len(front):
        pinned = pinned.join(Memory(np.full(len(front), -1), np.array(
            [_KIND_CODES[k] for k, _ in front], dtype=np.int64),
            np.array([cost for _, cost in front], dtype=np.int64), np.full(len(front), -1)))
    if d.placeholder_end is not None:
        held = d.placeheld(c)[a:b][kept[~head]]
        if held.any():
            at = np.flatnonzero(held) + 1
            k = len(at)
            rest = Memory(*(np.insert(x, at, v) for x, v in (
                (rest.src, np.full(k, -1)), (rest.kind, np.full(k, RESULT)),
                (rest.cost, np.full(k, settings.placeholder_cost)),
                (rest.call, rest.call[at - 1]))))
    out = pinned.join(rest)
    kept_synthetic = m.take(m.synthetic) if spring else Memory.empty()
    if spring and len(kept_synthetic) and not len(front):
        count = int(np.count_nonzero(head))
        if not count:
            lead = out.kind != SYSTEM
            count = int(np.argmax(lead)) if lead.any() else len(out)
        out = out.take(np.arange(count)).join(kept_synthetic).join(
            out.take(np.arange(count, len(out))))
    return out


def _first(log, memories, strategy, budget, settings):
    spring = strategy.family.startswith("spring-")
    bodies = [m.take(~m.synthetic) if spring else m for m in memories]
    c = _corpus(log, bodies)
    d = strategy.spec.decide(c, strategy.args, budget, settings)
    keep = d.in_view(c)
    held = d.placeheld(c) if d.placeholder_end is not None else None
    system = c.kind == SYSTEM
    for s, m in enumerate(memories):
        a, b = int(c.offsets[s]), int(c.offsets[s + 1])
        if not keep[a:b].all() or (held is not None and held[a:b].any()):
            return s, c, d
        if d.front and d.fronted is not None and d.fronted[s]:
            return s, c, d
        cut = min(max(int(d.cut[s]), a), b)
        masked = d.mask is not None or (d.preamble_end is not None and d.preamble_end[s] > a)
        if not masked:
            pinned = cut - a                # the items before the cut, a prefix
        elif d.pinned:
            heads = np.flatnonzero(system[a:cut])
            if len(heads) and heads[-1] != len(heads) - 1:
                return s, c, d              # pinned SYSTEM items would move forward
            pinned = len(heads)
        else:
            pinned = 0
        if spring and m.synthetic.any() and not _pinned_again(m, bodies[s], pinned):
            return s, c, d
    return len(memories), c, d


def _pinned_again(m: Memory, body: Memory, pinned: int) -> bool:
    """Whether compact, keeping all of ``body``, puts the synthetic items of ``m`` back
    where they are: after the pinned items, or after the leading SYSTEM items when none."""
    if not pinned:
        lead = body.kind != SYSTEM
        pinned = int(np.argmax(lead)) if lead.any() else len(body)
    where = np.flatnonzero(m.synthetic)
    return bool(np.array_equal(where, np.arange(pinned, pinned + len(where))))


def _corpus(log: SessionLog, memories: list[Memory]) -> Corpus:
    """The memories as the sessions of one corpus, each as ``one_session`` builds the corpus
    of a memory read as a log (``memory.as_log``): its items' kinds, costs and call ids,
    the log's message ids (none for a synthetic item), pairing within each memory."""
    sizes = np.array([len(m) for m in memories], dtype=np.int64)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    n = int(offsets[-1])
    if n:
        src = np.concatenate([m.src for m in memories])
        kind = np.concatenate([m.kind for m in memories])
        cost = np.concatenate([m.cost for m in memories])
        call = np.concatenate([m.call for m in memories])
    else:
        src = kind = cost = call = np.zeros(0, dtype=np.int64)
    message = np.where(src >= 0, log.message[np.where(src >= 0, src, 0)] if log.n else -1, -1)
    session = np.repeat(np.arange(len(memories), dtype=np.int32), sizes)
    has_id = (call >= 0) & ((kind == CALL) | (kind == RESULT))
    call_key = np.where(has_id, call + 1, 0).astype(np.uint64)
    order = pair_order(call_key, has_id, session, offsets[:-1])
    prev_call, next_result = pairs_in_groups(kind, order, call_key[order])
    return Corpus(offsets=offsets, session=session, kind=kind, cost=cost, has_id=has_id,
                  prev_call=prev_call, next_result=next_result, user_key=None, turn_key=None,
                  call_key=call_key,
                  message_key=np.where(message >= 0, message + 1, 0).astype(np.uint64),
                  has_message=message >= 0, archived=np.zeros(n, dtype=bool),
                  eid=np.arange(n), call_order=order)
