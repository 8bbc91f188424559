"""The whole corpus as flat numpy columns in (session, viewed order), for the sweep.

Every array is indexed by the global position g = offset[session] + pos. What does not
depend on the strategy or the budget (suffix costs, turn starts, pairing, prefix counts,
the positions that decide key-collapse metrics) is computed here once per order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.log import CALL, CONTENT_KINDS, RESULT, USER, pairs_in_groups
from explorer.compaction.positions import next_flagged
from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts


@dataclass
class Corpus:
    offsets: np.ndarray      # first g of each session (length S + 1: the last is N)
    session: np.ndarray      # session number of each g
    kind: np.ndarray
    cost: np.ndarray
    has_id: np.ndarray       # CALL/RESULT with a call id
    prev_call: np.ndarray    # global g of the nearest earlier CALL of the id, -1
    next_result: np.ndarray  # global g of the nearest later RESULT of the id, -1
    user_key: np.ndarray | None
    turn_key: np.ndarray | None
    call_key: np.ndarray
    message_key: np.ndarray  # hash of message_id (0 where has_message is False)
    has_message: np.ndarray
    archived: np.ndarray     # the writer marked the event as out of the model's view
    eid: np.ndarray          # import position of each event (to join transform costs)

    def __post_init__(self) -> None:
        n_all = len(self.kind)
        self.sizes = np.diff(self.offsets)
        self.ends = self.offsets[1:]
        self.start = self.offsets[:-1]
        g = np.arange(n_all)
        # suffix_from[g]: cost of the events at g and after, in its session
        total = np.r_[0, np.cumsum(self.cost)]
        self.total = total
        self.suffix_from = total[self.ends[self.session]] - total[g]
        # Positions and counts fit in 32 bits (a corpus under 2**31 events): half the memory.
        self.turn_start = _turn_start(self.kind == USER, self.start).astype(np.int32)
        self.next_user = next_flagged(self.kind == USER, self.ends).astype(np.int32)
        self.content = np.isin(self.kind, CONTENT_KINDS)
        self.content_prefix = np.r_[0, np.cumsum(self.content, dtype=np.int32)]
        dangling = (self.kind == CALL) & self.has_id & (self.next_result < 0)
        self.dangling_prefix = np.r_[0, np.cumsum(dangling, dtype=np.int32)]
        heads = (self.kind == RESULT) & self.has_id
        self.after_heads = next_flagged(~heads, self.ends).astype(np.int32)
        del g
        res = np.flatnonzero(heads)
        self.results = (res, self.session[res], self.prev_call[res])
        self.dup_ids = _second_last_per_group(self.call_key, self.kind == CALL, self.session)
        self.mixed = _mixed_positions(self.user_key, self.session, len(self.sizes))
        self.turn_groups = _turn_collision_positions(self.turn_key, self.user_key, self.session)


def load(db: Db, order: Order, settings: CostSettings) -> tuple[Corpus, int]:
    """Fetch the corpus in ``order``; returns it and the number of sessions."""
    token_counts.ensure(db, settings)
    rows = db.con.execute(_render(order, settings), settings.params()).fetchnumpy()
    session = np.asarray(rows["session_no"], dtype=np.int64)
    counts = np.bincount(session) if len(session) else np.zeros(0, dtype=np.int64)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    g = offsets[session] + np.asarray(rows["pos"], dtype=np.int64)
    n = len(g)

    def place(values, dtype, fill=0):
        out = np.full(n, fill, dtype=dtype)
        out[g] = values
        return out

    kind = place(np.asarray(rows.pop("kind")), np.int8)
    cost = place(np.asarray(rows.pop("cost")), np.int64)
    call_key, has_id = _masked(rows.pop("call_key"), g, n)
    user_key, has_user = _masked(rows.pop("user_key"), g, n)
    turn_key, has_turn = _masked(rows.pop("turn_key"), g, n)
    message_key, has_message = _masked(rows.pop("message_key"), g, n)
    archived = place(np.asarray(rows.pop("archived")), bool, False)
    eid = place(np.asarray(rows.pop("eid")), np.int64)
    rows.clear()
    by_g = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
    prev_call, next_result = (a.astype(np.int32) for a in _pairs(call_key, has_id, kind))
    corpus = Corpus(offsets, by_g, kind, cost, has_id, prev_call, next_result,
                    user_key if has_user.any() else None,
                    turn_key if has_turn.any() else None, np.where(has_id, call_key, 0),
                    message_key, has_message, archived, eid)
    return corpus, len(counts)


def _render(order: Order, settings: CostSettings) -> str:
    import queries
    return queries.render("sweep_events", order=ORDER_KEYS[Order(order)], **settings.fragments())


def _masked(column, g: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A nullable UBIGINT column placed at g: values (0 where null) and presence."""
    present = ~np.ma.getmaskarray(column)
    values = np.zeros(n, dtype=np.uint64)
    flags = np.zeros(n, dtype=bool)
    values[g[present]] = np.ma.getdata(column)[present]
    flags[g[present]] = True
    return values, flags


def pair_order(key: np.ndarray, has_id: np.ndarray) -> np.ndarray:
    """CALL/RESULT events with an id grouped by (session, call id) -- by a 64-bit hash of
    the two -- sorted stably so that positions stay ascending within each group."""
    idx = np.flatnonzero(has_id)
    return idx[np.argsort(key[idx], kind="stable")]


def _pairs(key: np.ndarray, has_id: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUDITS.md pairing over the corpus."""
    order = pair_order(key, has_id)
    return pairs_in_groups(kind, order, key[order])


def _turn_start(is_user, start):
    """Global index of the USER opening the turn of g (its session's start: preamble).
    Each session's first event carries its start as a floor, so a USER of the previous
    session never reaches forward."""
    marks = np.where(is_user, np.arange(len(is_user)), -1)
    marks[start] = np.maximum(marks[start], start)
    return np.maximum.accumulate(marks) if len(marks) else marks


def _second_last_per_group(key, member, session):
    """(session, position) of the second-to-last member of each key group that has two:
    a call id is carried by two CALLs of a view once the view reaches back to that CALL."""
    idx = np.flatnonzero(member & (key != 0))
    if not len(idx):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = idx[np.argsort(key[idx], kind="stable")]
    k = key[order]
    last = np.flatnonzero(np.r_[k[1:] != k[:-1], True])
    before = last - 1
    ok = before >= 0
    ok[ok] = k[before[ok]] == k[last[ok]]
    chosen = order[before[ok]]
    return session[chosen], chosen


def turn_user_key(turn_key: np.ndarray, user_key: np.ndarray) -> np.ndarray:
    """One hashed key per (session, logged turn, user) from the two hashed keys."""
    return (turn_key * np.uint64(0x9E3779B97F4A7C15)) ^ user_key


def _second_largest(positions: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """For each owner key (aligned with ``positions``), the second-largest of its positions;
    owners with fewer than two positions give none."""
    order = np.lexsort((-positions, owner))
    owners = owner[order]
    pick = (np.arange(len(owners)) - np.searchsorted(owners, owners)) == 1
    return positions[order][pick]


def _group_lasts(keys, positions):
    """The last position of each key group (positions ascending)."""
    by_key = np.argsort(keys, kind="stable")
    k = keys[by_key]
    return positions[by_key][np.r_[k[1:] != k[:-1], True]] if len(k) else positions


def _mixed_positions(user_key, session, n_sessions):
    """Per session, the second-largest of its users' last positions (-1: under two users):
    a suffix view holds two users once it reaches back to that position."""
    out = np.full(n_sessions, -1, dtype=np.int64)
    if user_key is None:
        return out
    idx = np.flatnonzero(user_key != 0)
    lasts = _group_lasts(user_key[idx], idx)
    chosen = _second_largest(lasts, session[lasts])
    out[session[chosen]] = chosen
    return out


def _turn_collision_positions(turn_key, user_key, session):
    """(session, position) per (session, logged turn) group: the second-largest of its
    users' last positions (the turn collides in a view that reaches back to it)."""
    if turn_key is None or user_key is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    idx = np.flatnonzero(turn_key != 0)
    lasts = _group_lasts(turn_user_key(turn_key[idx], user_key[idx]), idx)  # per (turn, user)
    chosen = _second_largest(lasts, turn_key[lasts])
    return session[chosen], chosen


def cost_figures(cost: np.ndarray, budget: int) -> dict:
    """The figures that come from the view costs alone: windows (one view per session),
    kept_cost, max_cost, over_budget and over_ratio = kept_cost / (B x windows)."""
    windows, kept = len(cost), int(cost.sum())
    return {"windows": windows, "kept_cost": kept,
            "max_cost": int(cost.max()) if windows else 0,
            "over_budget": int(np.count_nonzero(cost > budget)),
            "over_ratio": round(kept / (budget * windows), 6) if windows else 0.0}
