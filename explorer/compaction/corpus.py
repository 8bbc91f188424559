"""The whole corpus as flat numpy columns in (session, viewed order), for the sweep.

Every array is indexed by the global position g = offset[session] + pos. What does not
depend on the strategy or the budget (suffix costs, turn starts, pairing, prefix counts,
the positions that decide key-collapse metrics) is computed here once per order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.log import CALL, CONTENT_KINDS, NOTED, RESULT, USER, pairs_in_groups
from explorer.compaction.positions import next_flagged
from explorer.model import ORDER_KEYS, CostSettings, Order
from explorer.store.db import Db
from explorer.store.transaction import transaction
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
    #: pair_order(call_key, has_id, session, start), when the caller has it already
    call_order: np.ndarray | None = None
    #: the USER opening each g's turn and the next USER at or after g (int32), when the
    #: caller has them already (one session's log: explorer.compaction.log.SessionLog)
    turn_start: np.ndarray | None = None
    next_user: np.ndarray | None = None
    #: the prefix costs (length N + 1), when the caller has them already (SessionLog.prefix);
    #: a copy with other costs (dataclasses.replace) passes None, to have them made again
    total: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.sizes = np.diff(self.offsets)
        self.ends = self.offsets[1:]
        self.start = self.offsets[:-1]
        if self.call_order is None:
            self.call_order = pair_order(self.call_key, self.has_id, self.session, self.start)
        # total[g]: the cost of the events before g (the cost at g and after, in its session,
        # is total[end] - total[g]: explorer.compaction.strategies.reference.k0)
        if self.total is None:
            self.total = np.r_[0, np.cumsum(self.cost, dtype=np.int64)]
        # Positions and counts fit in 32 bits (a corpus under 2**31 events): half the memory.
        is_user = self.kind == USER
        if self.turn_start is None:
            self.turn_start = _turn_start(is_user, self.start)
        if self.next_user is None:
            self.next_user = next_flagged(is_user, self.ends, np.int32)
        self.content = np.isin(self.kind, CONTENT_KINDS)
        self.content_prefix = np.r_[0, np.cumsum(self.content, dtype=np.int32)]
        dangling = (self.kind == CALL) & self.has_id & (self.next_result < 0)
        self.dangling_prefix = np.r_[0, np.cumsum(dangling, dtype=np.int32)]
        heads = (self.kind == RESULT) & self.has_id
        self.after_heads = next_flagged(~heads, self.ends, np.int32)
        res = np.flatnonzero(heads)
        self.results = (res, self.session[res], self.prev_call[res])
        self.dup_ids = _second_last_per_group(self.call_order, self.call_key,
                                              self.kind == CALL, self.session)
        self.mixed = _mixed_positions(self.user_key, self.session, len(self.sizes))
        self.turn_groups = _turn_collision_positions(self.turn_key, self.user_key, self.session)


def load(db: Db, order: Order, settings: CostSettings) -> tuple[Corpus, int]:
    """Fetch the corpus in ``order``; returns it and the number of sessions.

    DuckDB sorts only the eids (sweep_order); the columns come unsorted, a batch at a
    time (sweep_events), and numpy places each row at its event's global position: the
    sort moves 8 bytes a row instead of every column, and no whole result is held twice.
    The three statements read one snapshot (a transaction)."""
    import queries
    token_counts.ensure(db, settings)
    with transaction(db.con):
        counts = db.con.execute(queries.load("sweep_sessions")).fetchnumpy()["events"]
        sorted_eids = db.con.execute(queries.render(
            "sweep_order", order=ORDER_KEYS[Order(order)])).fetchnumpy()["eid"]
        columns = _placed_columns(db, settings, sorted_eids)
    counts = np.asarray(counts, dtype=np.int64)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    (kind, cost, archived), keys = columns
    (call_key, has_id), (user_key, has_user), (turn_key, has_turn), (message_key, has_message) = keys
    by_g = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
    calls = pair_order(call_key, has_id, by_g, offsets[:-1])
    prev_call, next_result = pairs_in_groups(kind, calls, call_key[calls], dtype=np.int32)
    eid = sorted_eids.astype(np.int64, copy=False)
    corpus = Corpus(offsets, by_g, kind, cost, has_id, prev_call, next_result,
                    user_key if has_user.any() else None,
                    turn_key if has_turn.any() else None, call_key,
                    message_key, has_message, archived, eid, calls)
    return corpus, len(counts)


# queries/sweep_events.sql writes 7 for a USER event with a note (explorer.compaction.log).
assert NOTED == 7
#: The plain columns of sweep_events and their dtypes; then its nullable UBIGINT keys.
_PLAIN = (("kind", np.int8), ("cost", np.int64), ("archived", bool))
_KEYS = ("call_key", "user_key", "turn_key", "message_key")


def _placed_columns(db: Db, settings: CostSettings, sorted_eids: np.ndarray):
    """The columns of sweep_events at each event's place in ``sorted_eids``: the plain ones,
    and each key with its presence (0 / False where NULL). Columns start as zeros, whose
    pages the system maps only once written: a key no event has costs no memory."""
    import queries
    n = len(sorted_eids)
    place = np.zeros(int(sorted_eids.max(initial=-1)) + 1, dtype=np.int32)
    place[sorted_eids] = np.arange(n, dtype=np.int32)
    plain = [np.zeros(n, dtype=dtype) for _, dtype in _PLAIN]
    keys = [(np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool)) for _ in _KEYS]
    text = queries.render("sweep_events", **settings.fragments())
    for batch in db.con.sql(text, params=settings.params()).to_arrow_reader(1 << 20):
        g = place[batch.column("eid").to_numpy()]
        for (name, _), out in zip(_PLAIN, plain):
            out[g] = batch.column(name).to_numpy(zero_copy_only=False)
        for name, (values, present) in zip(_KEYS, keys):
            column = batch.column(name)
            if column.null_count == len(column):
                continue
            valid = column.is_valid().to_numpy(zero_copy_only=False)
            present[g] = valid
            values[g[valid]] = column.drop_null().to_numpy()
    return plain, keys


def pair_order(key: np.ndarray, has_id: np.ndarray, session: np.ndarray | None = None,
               start: np.ndarray | None = None) -> np.ndarray:
    """CALL/RESULT events with an id grouped by (session, call id) -- by a 64-bit hash of
    the two -- with positions ascending within each group: ``idx[np.argsort(key[idx],
    kind="stable")]`` but for the order of the groups. Given each event's ``session`` and
    each session's ``start``, the groups come session by session, so that what reads the
    events in this order stays inside one session's stretch of memory at a time.

    Found by one sort of (session, high bits of the key, position in the session) packed
    in a uint64 -- far faster than an argsort -- and a full re-sort of the rare runs where
    two keys that share those high bits met."""
    idx = np.flatnonzero(has_id)
    if session is None or start is None:  # the corpus as one session
        session, start = np.zeros(len(key), dtype=np.int32), np.zeros(1, dtype=np.int64)
    owner = session[idx]
    pos = idx - start[owner]
    pos_bits = int(pos.max(initial=0)).bit_length()
    session_bits = max(len(start) - 1, 0).bit_length()
    hash_bits = 64 - session_bits - pos_bits   # >= 2 for a corpus under 2**31 events
    packed = ((key[idx] >> np.uint64(64 - hash_bits)) << np.uint64(pos_bits)) | pos.astype(np.uint64)
    if session_bits:
        packed |= owner.astype(np.uint64) << np.uint64(64 - session_bits)
    del owner, pos
    packed.sort()
    run = packed >> np.uint64(pos_bits)   # (session, high bits of the key)
    order = start[(packed >> np.uint64(64 - session_bits)).astype(np.int64)] if session_bits \
        else np.full(len(packed), start[0], dtype=np.int64)
    order += (packed & np.uint64((1 << pos_bits) - 1)).astype(np.int64)
    del packed
    if len(order) < 2:
        return order
    same_run = run[1:] == run[:-1]
    full = key[order]
    met = same_run & (full[1:] != full[:-1])
    if met.any():
        runs = np.cumsum(np.r_[True, ~same_run])
        slots = np.flatnonzero(np.isin(runs, runs[1:][met]))
        order[slots] = order[slots][np.lexsort((order[slots], full[slots], runs[slots]))]
    return order


def _turn_start(is_user, start):
    """Global index of the USER opening the turn of g (its session's start: preamble).
    Each session's first event carries its start as a floor, so a USER of the previous
    session never reaches forward."""
    marks = np.where(is_user, np.arange(len(is_user), dtype=np.int32), -1)
    marks[start] = np.maximum(marks[start], start)
    np.maximum.accumulate(marks, out=marks)
    return marks


def _second_last_per_group(order, key, member, session):
    """(session, position) of the second-to-last member of each key group that has two:
    a call id is carried by two CALLs of a view once the view reaches back to that CALL.
    ``order``: positions grouped by key, ascending in each group (every member among them)."""
    order = order[member[order] & (key[order] != 0)]
    if not len(order):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
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
