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
    first: np.ndarray    # per message: it is the first of its view
    offset: np.ndarray | None = None   # per view: added to N (openai-chat's system message)

    @property
    def count(self) -> int:
        return len(self.seg)

    def index(self, m: np.ndarray) -> np.ndarray:
        """N of messages ``m``: their index in their view's request. Asked of the messages
        a violation names only: most views break no rule, and numbering every message of
        the sweep's requests was a fifth of their messages' cost."""
        m = np.asarray(m, dtype=np.int64)
        if not len(m):
            return m
        n = m - self.view_first_of(m)
        return n + self.offset[self.seg[m]] if self.offset is not None else n

    def view_first_of(self, m: np.ndarray) -> np.ndarray:
        """The first message of the view of each of messages ``m``."""
        return self._view_first[self.seg[m]]

    @cached_property
    def number(self) -> np.ndarray:
        """N of every message (:meth:`index`)."""
        return self.index(np.arange(self.count))

    @cached_property
    def _view_first(self) -> np.ndarray:
        """Per view: its first message."""
        first = np.flatnonzero(self.first)
        out = np.zeros(int(self.seg[-1]) + 1 if self.count else 0, dtype=np.int64)
        out[self.seg[first]] = first
        return out

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

    def from_next(self, values: np.ndarray, fill) -> np.ndarray:
        """Per message, ``values`` of the next message in its view (``fill``: none): by a
        shift, not a gather."""
        out = np.empty_like(values)
        out[:-1] = values[1:]
        out[self.last] = fill
        return out

    def from_prev(self, values: np.ndarray, fill) -> np.ndarray:
        """Per message, ``values`` of the previous message in its view (``fill``: none)."""
        out = np.empty_like(values)
        out[1:] = values[:-1]
        out[self.first] = fill
        return out

    def counts(self, before: np.ndarray) -> np.ndarray:
        """How many items of a kind each message holds, given how many come before each
        item (``req.calls_before``, ``req.results_before``: shared by the providers)."""
        at = before[self.start]
        return at[1:] - at[:-1]


def messages(req: Request, boundary: np.ndarray, role: np.ndarray,
             offset: np.ndarray | None = None) -> Messages:
    """Runs starting where ``boundary`` is set or a view starts; ``offset`` per view is
    added to N (openai-chat's system message)."""
    bounds = boundary | req.new_view
    count = int(np.count_nonzero(bounds))
    start = np.empty(count + 1, dtype=np.int64)
    start[:count] = np.flatnonzero(bounds)
    start[count] = req.n
    starts = start[:count]
    of = np.cumsum(bounds, dtype=np.int64)
    of -= 1
    seg = req.seg[starts]
    if req.views == 1:   # one view: numbered from its first message
        first = np.zeros(count, dtype=bool)
        first[:1] = True
    else:
        first = np.ones(count, dtype=bool)
        first[1:] = seg[1:] != seg[:-1]
    return Messages(of, start, seg, role[starts], first, offset)


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


def result_of_call(req: Request) -> np.ndarray | None:
    """When no id is on two RESULTs: per CALL of ``req.calls``, the index in ``req.results``
    of the RESULT of its id (-1: none); else None. Found once per request for the
    providers' membership tests of calls among results (kept on ``req``)."""
    if "_result_of_call" not in req.__dict__:
        req.__dict__["_result_of_call"] = _partners(req, req.results, req.calls) \
            if req.results_unique else None
    return req.__dict__["_result_of_call"]


def call_of_result(req: Request) -> np.ndarray | None:
    """When no id is on two CALLs: per RESULT of ``req.results``, the index in ``req.calls``
    of the CALL of its id (-1: none); else None (kept on ``req``)."""
    if "_call_of_result" not in req.__dict__:
        req.__dict__["_call_of_result"] = _partners(req, req.calls, req.results) \
            if req.calls_unique else None
    return req.__dict__["_call_of_result"]


def _partners(req: Request, targets: np.ndarray, items: np.ndarray) -> np.ndarray:
    where = scratch(req)
    codes = req.code[targets]
    where[codes] = np.arange(len(targets))
    out = where[req.code[items]]
    where[codes] = -1
    return out


def matched(partner: np.ndarray, group: np.ndarray, set_group: np.ndarray,
            in_set: np.ndarray | None = None) -> np.ndarray:
    """:func:`member` by partners (:func:`result_of_call`, :func:`call_of_result`): whether
    each item's partner is in the set (``in_set``, per partner index; all when None) with
    the item's ``group`` (``set_group``: per partner index)."""
    has = partner >= 0
    at = np.where(has, partner, 0)
    if len(set_group):
        has &= set_group[at] == group
    if in_set is not None and len(in_set):
        has &= in_set[at]
    return has


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
