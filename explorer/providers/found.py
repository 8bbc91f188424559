"""What the provider checks share: a request's messages (runs of items), the violations
found as arrays (one row each), and the grouped counts they are found with.

A check returns a :class:`Found`: per violation its rule, view, message index ``N``,
block index ``M`` (-1: none), the stretch of items whose CALLs and RESULTs it concerns
(``lo``..``hi`` and one more item, ``extra``), and its ids as (violation, item) pairs.
Nothing here builds a Python object per item, so the sweep checks a corpus at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from explorer.providers.request import Request


@dataclass
class Messages:
    """A request's messages: maximal runs of items (per view), numbered from 0 in each."""

    of: np.ndarray       # per item: its message (numbered over all views)
    start: np.ndarray    # per message: its first item; then n
    seg: np.ndarray      # per message: its view
    role: np.ndarray     # per message: the role its items share
    number: np.ndarray   # per message: N, its index in its view's request
    first: np.ndarray    # per message: it is the first of its view

    @property
    def count(self) -> int:
        return len(self.seg)

    def block(self, positions: np.ndarray) -> np.ndarray:
        """M of the items at ``positions``: their place in their message."""
        return positions - self.start[self.of[positions]]

    def prev_ok(self, m: np.ndarray) -> np.ndarray:
        """Message ``m`` has a previous message in its view."""
        return ~self.first[m]

    def next_ok(self, m: np.ndarray) -> np.ndarray:
        """Message ``m`` has a next message in its view."""
        return ~self.last[m]

    @cached_property
    def last(self) -> np.ndarray:
        """Per message: it is the last of its view."""
        last = np.ones(self.count, dtype=bool)
        last[:-1] = self.first[1:]
        return last

    def per_message(self, flags: np.ndarray) -> np.ndarray:
        """How many flagged items each message holds."""
        return np.bincount(self.of[flags], minlength=self.count)


def messages(req: Request, boundary: np.ndarray, role: np.ndarray,
             offset: np.ndarray | None = None) -> Messages:
    """Runs starting where ``boundary`` is set or a view starts; ``offset`` per view is
    added to N (openai-chat's system message)."""
    bounds = boundary | req.new_view
    starts = np.flatnonzero(bounds)
    of = np.cumsum(bounds, dtype=np.int64)
    of -= 1
    seg = req.seg[starts]
    count = len(starts)
    if req.views == 1:   # one view: numbered from its first message
        first = np.zeros(count, dtype=bool)
        first[:1] = True
        number = np.arange(count)
    else:
        first = np.ones(count, dtype=bool)
        first[1:] = seg[1:] != seg[:-1]
        head = np.maximum.accumulate(np.where(first, np.arange(count), 0)) if count else starts
        number = np.arange(count) - head
    if offset is not None:
        number = number + offset[seg]
    return Messages(of, np.append(starts, req.n), seg, role[starts], number, first)


def runs(req: Request, role: np.ndarray, every: np.ndarray | None = None) -> Messages:
    """Messages as runs of one ``role`` (``every`` marks items that are a message alone)."""
    change = np.ones(req.n, dtype=bool)
    if req.n > 1:
        change[1:] = role[1:] != role[:-1]
    if every is not None:
        change |= every
    return messages(req, change, role)


def member(req: Request, group: np.ndarray, items: np.ndarray, set_group: np.ndarray,
           set_items: np.ndarray, unique: bool | None = None) -> np.ndarray:
    """Whether each (``group``, call id of ``items``) is among the (``set_group``, call id of
    ``set_items``) pairs. When no id occurs twice in the set (the usual log; ``unique``
    says so when the caller knows, e.g. the set is among ``req.results`` and
    ``req.results_unique``), one array indexed by the id answers it; else a sort does."""
    if not len(items):
        return np.zeros(0, dtype=bool)
    set_codes = req.code[set_items]
    if unique is None:
        unique = not len(set_items) or np.bincount(set_codes, minlength=req.ncodes).max() <= 1
    if unique:
        where = scratch(req)
        where[set_codes] = set_group
        out = where[req.code[items]] == group
        where[set_codes] = -1
        return out
    return np.isin(req.key(group, items), req.key(set_group, set_items))


def scratch(req: Request) -> np.ndarray:
    """One array per call id code of ``req``, -1 everywhere: the caller sets the entries of
    the codes it asks about and sets them back to -1 (the sweep's requests hold millions of
    codes: a fresh array per rule was a third of its check). Not for two threads at once."""
    where = req.__dict__.get("_where")
    if where is None:
        where = req.__dict__["_where"] = np.full(req.ncodes, -1, dtype=np.int64)
    return where


def repeats(req: Request, group: np.ndarray, items: np.ndarray,
            unique: bool | None = None) -> np.ndarray:
    """For each of ``items``, whether an earlier one has its (``group``, call id)
    (``unique``: no id is on two of ``items``, as the caller knows)."""
    if unique is None:
        unique = not len(items) or np.bincount(req.code[items], minlength=req.ncodes).max() <= 1
    if not len(items) or unique:
        return np.zeros(len(items), dtype=bool)
    return later_repeats(req.key(group, items))


def later_repeats(keys: np.ndarray) -> np.ndarray:
    """For each element, whether an earlier element has its key."""
    if not len(keys):
        return np.zeros(0, dtype=bool)
    order = np.argsort(keys, kind="stable")
    repeat = np.zeros(len(keys), dtype=bool)
    sk = keys[order]
    repeat[order[1:]] = sk[1:] == sk[:-1]
    return repeat


@dataclass
class Found:
    """Violations of one provider as arrays, one row each (see the module docstring)."""

    rule: np.ndarray
    seg: np.ndarray
    message: np.ndarray
    content: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    extra: np.ndarray
    id_of: np.ndarray     # (violation, item) pairs: the ids of each violation
    id_item: np.ndarray

    def __len__(self) -> int:
        return len(self.rule)

    def rejected(self, views: int) -> np.ndarray:
        """Per view: it breaks at least one rule."""
        return np.bincount(self.seg, minlength=views) > 0


def _nothing() -> Found:
    e = np.zeros(0, dtype=np.int64)
    e.flags.writeable = False
    return Found(e, e, e, e, e, e, e, e, e)


#: No violation (shared, read-only): most views break no rule, and building an empty
#: Found per rule was most of a clean view's check.
NOTHING = _nothing()


def found(rule: int, seg, message, content=None, lo=None, hi=None, extra=None,
          id_of=None, id_item=None) -> Found:
    """One rule's violations; ``content``/``extra`` default to none, the ids to none."""
    k = len(seg)
    if not k:
        return NOTHING
    none = np.full(k, -1, dtype=np.int64)
    return Found(np.full(k, rule, dtype=np.int64), np.asarray(seg, dtype=np.int64),
                 np.asarray(message, dtype=np.int64),
                 none if content is None else np.asarray(content, dtype=np.int64),
                 np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64),
                 none if extra is None else np.asarray(extra, dtype=np.int64),
                 np.zeros(0, dtype=np.int64) if id_of is None else np.asarray(id_of, np.int64),
                 np.zeros(0, dtype=np.int64) if id_item is None else np.asarray(id_item, np.int64))


def per_item(rule: int, ms: Messages, positions: np.ndarray, message: np.ndarray, lo_msg,
             hi_msg, content: bool = False) -> Found:
    """One violation per item at ``positions`` (its id; N = ``message``; its events are the
    items of messages ``lo_msg``..``hi_msg``)."""
    if not len(positions):
        return NOTHING
    return found(rule, ms.seg[ms.of[positions]], message,
                 ms.block(positions) if content else None, ms.start[lo_msg],
                 ms.start[hi_msg + 1], id_of=np.arange(len(positions)), id_item=positions)


def per_message(rule: int, ms: Messages, positions: np.ndarray, message_of_item: np.ndarray,
                number, lo_msg, hi_msg) -> Found:
    """One violation per distinct message of ``message_of_item`` (ascending with the
    positions), holding the ids of its items at ``positions``; ``number``, ``lo_msg`` and
    ``hi_msg`` are functions of the message array."""
    if not len(positions):
        return NOTHING
    msgs, vi = np.unique(message_of_item, return_inverse=True)
    return found(rule, ms.seg[msgs], number(msgs), None, ms.start[lo_msg(msgs)],
                 ms.start[hi_msg(msgs) + 1], id_of=vi.ravel(), id_item=positions)


def combine(parts: list[Found]) -> Found:
    """The violations of several rules, in the order PROVIDERS.md lists them: by view,
    message index, block index, then the rule's place in the table."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return NOTHING
    offsets = np.cumsum([0] + [len(p) for p in parts])
    cat = {f: np.concatenate([getattr(p, f) for p in parts])
           for f in ("rule", "seg", "message", "content", "lo", "hi", "extra")}
    id_of = np.concatenate([p.id_of + o for p, o in zip(parts, offsets)])
    id_item = np.concatenate([p.id_item for p in parts])
    order = np.lexsort((cat["rule"], cat["content"], cat["message"], cat["seg"]))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return Found(**{f: v[order] for f, v in cat.items()}, id_of=rank[id_of], id_item=id_item)
