"""A view as a provider request sees it (PROVIDERS.md, "From a view to messages"): the
items in view order with OTHER and SYSTEM set aside, each with its speaker, as arrays.

Several views can be checked at once (the sweep): ``seg`` numbers the view an item belongs
to, and no message runs across views. Builders: a list of view items
(:func:`from_items`), a session log and a strategy's window (:func:`from_window`, the
slider's path), the whole log (:func:`from_log`), a corpus decision (:func:`from_decision`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from explorer.compaction.log import CALL, NOTED, OTHER, RESULT, SUMMARY, SYSTEM, USER
from explorer.model import KINDS

#: Speakers of an item: who sends it (a tool result is its own speaker; providers place it).
USER_SPEAKER, ASSISTANT_SPEAKER, TOOL_SPEAKER = 0, 1, 2
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
# who speaks each kind before tool results and shadow summaries are placed (a noted USER,
# compaction.log's NOTED, is a USER; SYSTEM and OTHER never reach a request)
_SPEAKER_OF_KIND = np.full(NOTED + 1, ASSISTANT_SPEAKER, dtype=np.int8)
_SPEAKER_OF_KIND[[USER, RESULT, SUMMARY, NOTED]] = USER_SPEAKER


@dataclass
class Request:
    """The items of one or more views that reach the messages (length n each), in order."""

    kind: np.ndarray        # KINDS index (a noted USER, compaction.log's NOTED, made USER)
    code: np.ndarray        # dense call id code, -1: no id (or not a CALL/RESULT)
    synthetic: np.ndarray   # bool
    seg: np.ndarray         # which view (0 for a single view), non-decreasing
    row: np.ndarray         # the log row (or corpus position) of the item, -1: synthetic
    views: int              # number of views
    system: np.ndarray      # per view: it holds SYSTEM items (openai-chat's message 0)
    id_text: list | None = None     # code -> call_id string (None in the sweep)
    seq: np.ndarray | None = None   # the items' seq and sub (-1 for synthetic ones)
    sub: np.ndarray | None = None
    codes_by_view: bool = False     # no code is on items of two views

    def __post_init__(self) -> None:
        n = self.n = len(self.kind)
        noted = self.kind == NOTED  # a USER with a note is sent as a USER (FORMAT.md)
        if noted.any():
            self.kind = np.where(noted, USER, self.kind)
        self.call = (self.kind == CALL) & (self.code >= 0)
        self.result = (self.kind == RESULT) & (self.code >= 0)
        # the positions of the CALLs and RESULTs with an id, shared by the five checks
        self.calls, self.results = np.flatnonzero(self.call), np.flatnonzero(self.result)
        # by kind (a USER with a note, harness text: FORMAT.md, is sent as user text; a
        # RESULT without id is user text; a SUMMARY is user text but after a shadow prompt)
        speaker = _SPEAKER_OF_KIND[self.kind]
        speaker[self.result] = TOOL_SPEAKER
        if n > 1:
            summary = self.kind[1:] == SUMMARY
            if summary.any():   # a SUMMARY right after a synthetic USER is the assistant's
                shadow = summary & (self.kind[:-1] == USER) & self.synthetic[:-1] \
                    & (self.seg[1:] == self.seg[:-1])
                speaker[1:][shadow] = ASSISTANT_SPEAKER
        self.speaker = speaker
        self.new_view = np.zeros(n, dtype=bool)
        if self.views == 1:
            self.new_view[:1] = True
        elif n:
            self.new_view[0] = True
            self.new_view[1:] = self.seg[1:] != self.seg[:-1]
        self.ncodes = int(self.code.max(initial=-1)) + 1

    @cached_property
    def calls_before(self) -> np.ndarray:
        """How many CALLs with an id come before each item (n + 1 values)."""
        return _before(self.call)

    @cached_property
    def results_before(self) -> np.ndarray:
        """How many RESULTs with an id come before each item (n + 1 values)."""
        return _before(self.result)

    @cached_property
    def calls_unique(self) -> bool:
        """No call id is on two CALLs (the usual log): membership is one indexed array."""
        return _unique(self.code[self.calls], self.ncodes)

    @cached_property
    def results_unique(self) -> bool:
        """No call id is on two RESULTs."""
        return _unique(self.code[self.results], self.ncodes)

    def key(self, group: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """One int64 per (group, call id) of the items at ``positions``."""
        return group.astype(np.int64) * (self.ncodes + 1) + self.code[positions]

    def ids(self, positions) -> tuple[str, ...]:
        """The call ids of the items at ``positions``, in order, each once."""
        seen: dict[str, None] = {}
        for p in positions:
            code = int(self.code[p])
            seen.setdefault(self.id_text[code] if self.id_text else str(code), None)
        return tuple(seen)


def _before(flags: np.ndarray) -> np.ndarray:
    out = np.zeros(len(flags) + 1, dtype=np.int64)
    np.cumsum(flags, out=out[1:])
    return out


def _ascending_unique(codes: np.ndarray) -> bool:
    """No value twice in ascending ``codes``."""
    return not bool((codes[1:] == codes[:-1]).any())


def _unique(codes: np.ndarray, ncodes: int) -> bool:
    return not len(codes) or int(np.bincount(codes, minlength=ncodes).max()) <= 1


def _request(kind, code, synthetic, seg, row, views, system, id_text=None, seq=None,
             sub=None) -> Request:
    body = (kind != SYSTEM) & (kind != OTHER)
    if not body.all():
        kind, code, synthetic, seg, row = (a[body] for a in (kind, code, synthetic, seg, row))
        seq = seq[body] if seq is not None else None
        sub = sub[body] if sub is not None else None
    return Request(kind, code, synthetic, seg, row, views, system, id_text, seq, sub)


def from_items(items) -> Request:
    """The request of one view given as :class:`explorer.compaction.Item` s (in order)."""
    codes: dict[str, int] = {}
    kind = np.array([_KIND_CODE[i.kind] for i in items], dtype=np.int64)
    code = np.array([codes.setdefault(i.call_id, len(codes))
                     if i.call_id is not None and i.kind in ("CALL", "RESULT") else -1
                     for i in items], dtype=np.int64)
    synthetic = np.array([i.synthetic for i in items], dtype=bool)
    row = np.array([-1 if i.index is None else i.index for i in items], dtype=np.int64)
    seq = np.array([-1 if i.seq is None else i.seq for i in items], dtype=np.int64)
    sub = np.array([-1 if i.sub is None else i.sub for i in items], dtype=np.int64)
    n = len(items)
    system = np.array([bool((kind == SYSTEM).any())])
    return _request(kind, code, synthetic, np.zeros(n, dtype=np.int64), row, 1, system,
                    list(codes), seq, sub)


def from_log(log) -> Request:
    """The whole session as logged (archived events included), in the log's order."""
    return from_rows(log, np.arange(log.n), (), ())


def from_window(log, w, keep: np.ndarray | None = None) -> Request:
    """The view of ``w`` (:func:`explorer.compaction.window`) of ``log``: its events, the
    front synthetic items before them (SYSTEM items aside, where they sit does not matter)
    and each placeholder RESULT right after its CALL. ``keep``: ``in_view(log, w)``, when
    the caller has it."""
    from explorer.compaction.window import in_view
    keep = in_view(log, w) if keep is None else keep
    system = np.array([bool(log.is_system[keep].any())])
    kind, code, synthetic, row, seq, sub = _window_arrays(log, w, keep)
    return Request(kind, code, synthetic, np.zeros(len(kind), dtype=np.int64), row, 1,
                   system, id_texts(log), seq, sub)


def from_rows(log, rows: np.ndarray, front, placeholders) -> Request:
    """Log ``rows`` (ascending) after the ``front`` items, placeholders after their CALLs."""
    system = np.array([bool(log.is_system[rows].any())])
    kind, code, synthetic, row, seq, sub = _view_arrays(log, _columns(log, rows), front,
                                                        placeholders)
    return Request(kind, code, synthetic, np.zeros(len(kind), dtype=np.int64), row, 1,
                   system, id_texts(log), seq, sub)


def _window_arrays(log, w, keep: np.ndarray) -> tuple:
    """:func:`_view_arrays` of a window: a suffix window's rows are the log's body rows
    from its cut (a slice; the SYSTEM rows it pins before the cut are not body rows)."""
    if w.mask is None:
        body = _body_columns(log)
        at = int(np.searchsorted(body[0], w.cut))
        columns = tuple(a[at:] for a in body)
    else:
        columns = _columns(log, np.flatnonzero(keep))
    return _view_arrays(log, columns, w.front, w.placeholders)


def _columns(log, rows: np.ndarray) -> tuple:
    """The rows of ``rows`` that reach the messages, with their kind, code, seq and sub."""
    body, id_code = _body_of(log)
    rows = rows[body[rows]]
    # kinds as int8 (as the sweep's): every check compares them, an eighth of the bytes
    return rows, log.kind[rows].astype(np.int8), id_code[rows], log.seq[rows], log.sub[rows]


def _body_columns(log) -> tuple:
    """:func:`_columns` of the whole log, kept on it (read-only: requests hold slices)."""
    cached = log.__dict__.get("_provider_body_columns")
    if cached is None:
        cached = tuple(np.array(a) for a in _columns(log, np.arange(log.n)))
        for a in cached:
            a.flags.writeable = False
        log.__dict__["_provider_body_columns"] = cached
    return cached


def _view_arrays(log, columns: tuple, front, placeholders) -> tuple:
    """The items of one view (its body ``columns``, then its synthetic items where they
    sit): kind, code, synthetic, row, seq, sub."""
    row, kind, code, seq, sub = columns
    synthetic = np.zeros(len(row), dtype=bool)
    if len(placeholders):
        held = np.asarray(placeholders, dtype=np.int64)
        at = np.searchsorted(row, held, side="right")
        kind = np.insert(kind, at, RESULT)
        code = np.insert(code, at, log.call[held])
        row, seq, sub = (np.insert(a, at, -1) for a in (row, seq, sub))
        synthetic = np.insert(synthetic, at, True)
    if front:
        k = len(front)
        kind = np.concatenate([np.array([_KIND_CODE[f[0]] for f in front], dtype=np.int8),
                               kind]).astype(np.int8, copy=False)
        code, row, seq, sub = (np.concatenate([np.full(k, -1), a]).astype(np.int64)
                               for a in (code, row, seq, sub))
        synthetic = np.concatenate([np.ones(k, dtype=bool), synthetic])
    return kind, code, synthetic, row, seq, sub


def _body_of(log) -> tuple[np.ndarray, np.ndarray]:
    """Per log row: it reaches the messages (not SYSTEM, not OTHER), and its call id code
    if it is a CALL or RESULT (else -1); kept on the log."""
    cached = log.__dict__.get("_provider_body")
    if cached is None:
        kind = log.kind
        cached = log.__dict__["_provider_body"] = (
            (kind != SYSTEM) & (kind != OTHER),
            np.where((kind == CALL) | (kind == RESULT), log.call, -1))
    return cached


def from_windows(log, windows, keeps) -> Request:
    """The views of several windows of one ``log`` (``keeps``: their :func:`in_view`) as one
    request of as many views, in order: what the compare table checks at once. Each view's
    call ids get codes of their own, so that an id is unique across views as within one."""
    parts = [_window_arrays(log, w, keep) for w, keep in zip(windows, keeps)]
    sizes = [len(p[0]) for p in parts]
    seg = np.repeat(np.arange(len(parts), dtype=np.int64), sizes)
    kind, code, synthetic, row, seq, sub = (np.concatenate([p[i] for p in parts])
                                            for i in range(6))
    width = int(log.call.max(initial=-1)) + 1
    code = np.where(code >= 0, code + seg * width, -1)
    system = np.array([bool(log.is_system[keep].any()) for keep in keeps])
    return Request(kind, code, synthetic, seg, row, len(parts), system, None, seq, sub, True)


def id_texts(log) -> list:
    """Per call id code of ``log``, its string (kept on the log)."""
    cached = log.__dict__.get("_id_texts")
    if cached is None:
        codes, first = np.unique(log.call, return_index=True)
        cached = [None] * (int(codes.max(initial=-1)) + 1)
        for code, at in zip(codes.tolist(), first.tolist()):
            if code >= 0:
                cached[code] = log.call_ids[at]
        log.__dict__["_id_texts"] = cached
    return cached


def dense_ids(c) -> np.ndarray:
    """Per corpus position, a dense code of its (session, call id), -1 without one;
    computed once per corpus from its ``call_order`` (the events with an id grouped by
    session and id), without a sort. An id is compared only within its session's view,
    and an id unique in its session has a code of its own: membership stays one array."""
    return _dense(c)[0]


def _dense(c) -> tuple[np.ndarray, bool, bool]:
    """:func:`dense_ids`, and whether no code is on two CALLs, or on two RESULTs, of the
    corpus (then none is in any view of it)."""
    cached = c.__dict__.get("_provider_codes")
    if cached is None:
        # int32 (a corpus holds under 2**31 events): the corpus-long arrays are fresh
        # pages, and faulting them in was most of this
        codes = np.full(len(c.kind), -1, dtype=np.int32)
        order = c.call_order
        calls_unique = results_unique = True
        if len(order):
            key, session = c.call_key[order], c.session[order]
            new = np.ones(len(order), dtype=bool)
            new[1:] = (key[1:] != key[:-1]) | (session[1:] != session[:-1])
            del key, session
            dense = np.cumsum(new, dtype=np.int32)
            del new
            dense -= 1
            codes[order] = dense
            kind = c.kind[order]
            # the codes ascend along call_order: one on two CALLs is on two neighbours
            calls_unique = _ascending_unique(dense[kind == CALL])
            results_unique = _ascending_unique(dense[kind == RESULT])
        cached = c.__dict__["_provider_codes"] = (codes, calls_unique, results_unique)
    return cached


def _body(c):
    """The corpus positions that reach messages (not SYSTEM, not OTHER), and the running
    count of SYSTEM events; computed once per corpus."""
    cached = c.__dict__.get("_provider_body")
    if cached is None:
        body = np.flatnonzero((c.kind != SYSTEM) & (c.kind != OTHER))
        systems = np.r_[0, np.cumsum(c.kind == SYSTEM)]
        cached = c.__dict__["_provider_body"] = (body, systems)
    return cached


def _last_system(c) -> np.ndarray:
    """Per session, the position of its last SYSTEM event (-1: none); once per corpus."""
    cached = c.__dict__.get("_provider_last_system")
    if cached is None:
        at = np.flatnonzero(c.kind == SYSTEM)
        cached = np.full(len(c.start), -1, dtype=np.int64)
        np.maximum.at(cached, c.session[at], at)
        c.__dict__["_provider_last_system"] = cached
    return cached


def ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The positions of the stretches ``[lo, hi)`` one after the other (empty when hi <= lo)."""
    sizes = np.maximum(hi - lo, 0)
    total = int(sizes.sum())
    starts = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    picks = np.repeat(lo - starts, sizes)
    picks += np.arange(total)
    return picks


def _suffix_rows(c, d, only):
    """The body positions of suffix views (from each cut to its session's end), with their
    kinds, and which views hold a SYSTEM event: by ranges, without a pass over the whole
    corpus (SYSTEM and OTHER events, rare, are dropped from the ranges)."""
    cut = np.asarray(d.cut, dtype=np.int64)
    ends = c.ends
    if only is not None:
        cut = np.where(only, cut, ends)
    system = _last_system(c) >= cut
    g = ranges(cut, ends)
    kind = c.kind[g]
    body = (kind != SYSTEM) & (kind != OTHER)
    if not body.all():
        g, kind = g[body], kind[body]
    return g, kind, system


def from_decision(c, d, only: np.ndarray | None = None) -> Request:
    """The views of every session of corpus ``c`` under decision ``d`` (the sweep); with
    ``only`` (bool per session), the views of the other sessions are left empty."""
    sessions = len(c.start)
    kind_all = c.kind
    if d.suffix_only:
        g, kind_g, system = _suffix_rows(c, d, only)
    else:
        mask = d.in_view(c)
        if only is not None:
            mask = mask & only[c.session]
        system = np.bincount(c.session[mask & (kind_all == SYSTEM)], minlength=sessions) > 0
        g = np.flatnonzero(mask & (kind_all != SYSTEM) & (kind_all != OTHER))
        kind_g = kind_all[g]
    codes, calls_unique, results_unique = _dense(c)
    parts_key = [g]   # made float64 by the concatenation with the synthetic items' keys
    # kinds as the corpus holds them (int8) and sessions as int32: the sweep's requests
    # hold millions of items, and fresh pages of big arrays cost as much as the checks
    kind, code, row = [kind_g.astype(np.int8, copy=False)], [codes[g]], [g]
    seg = [c.session[g].astype(np.int32, copy=False)]
    synthetic = [np.zeros(len(g), dtype=bool)]
    if d.placeholder_end is not None:
        held = np.flatnonzero(d.placeheld(c) if only is None else d.placeheld(c) & only[c.session])
        parts_key.append(held + 0.5)
        kind.append(np.full(len(held), RESULT, dtype=np.int8))
        code.append(codes[held])
        row.append(np.full(len(held), -1))
        seg.append(c.session[held].astype(np.int32))
        synthetic.append(np.ones(len(held), dtype=bool))
    if d.front and d.fronted is not None:
        fronted = np.flatnonzero(d.fronted if only is None else d.fronted & only)
        k = len(d.front)
        for i, (front_kind, _) in enumerate(d.front):
            parts_key.append(c.start[fronted] - 0.5 + 0.4 * i / k)
            kind.append(np.full(len(fronted), _KIND_CODE[front_kind], dtype=np.int8))
            code.append(np.full(len(fronted), -1))
            row.append(np.full(len(fronted), -1))
            seg.append(fronted.astype(np.int32))
            synthetic.append(np.ones(len(fronted), dtype=bool))
    if len(parts_key) == 1:
        req = Request(kind[0], code[0], synthetic[0], seg[0], row[0], sessions, system,
                      codes_by_view=True)
    else:
        order = np.argsort(np.concatenate(parts_key), kind="stable")
        req = Request(*(np.concatenate(a)[order] for a in (kind, code, synthetic, seg, row)),
                      sessions, system, codes_by_view=True)
    # one scratch array per corpus for the membership tests (found.scratch): each test
    # leaves it as it found it, and a fresh one per request faulted in its pages again
    if req.ncodes:
        where = c.__dict__.get("_provider_scratch")
        if where is None or len(where) < req.ncodes:
            where = c.__dict__["_provider_scratch"] = np.full(req.ncodes, -1, dtype=np.int64)
        req.__dict__["_where"] = where
    # ids unique in the corpus are unique in its views (a placeholder adds a RESULT)
    if calls_unique:
        req.__dict__["calls_unique"] = True
    if results_unique and d.placeholder_end is None:
        req.__dict__["results_unique"] = True
    return req
