"""The corpus arrays of the sweep against plain loops: the pair order (packed-key sort with
its re-sort of keys that share their high bits), the pairing and the next-flag search."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.compaction.corpus import pair_order
from explorer.compaction.positions import next_flagged
from explorer.compaction.log import CALL, RESULT, pairs_in_groups

#: Keys that share all their high bits (they differ in the lowest two only), and two that
#: differ in the top bit: the packed sort alone would mix the first ones' groups.
KEYS = (np.uint64(5), np.uint64(6), np.uint64(7), np.uint64(2**63 + 5), np.uint64(2**63 + 6))


@st.composite
def corpora(draw):
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))
    n = sum(sizes)
    kind = np.array(draw(st.lists(st.sampled_from([CALL, RESULT, 0, 1]), min_size=n, max_size=n)),
                    dtype=np.int8)
    key = np.array(draw(st.lists(st.sampled_from(KEYS), min_size=n, max_size=n)), dtype=np.uint64)
    has = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))) & np.isin(kind, (CALL, RESULT))
    return np.r_[0, np.cumsum(sizes)], kind, key, has


def _brute_pairs(kind, key, has, session):
    n = len(kind)
    prev_call, next_result = np.full(n, -1), np.full(n, -1)
    for i in range(n):
        if not has[i]:
            continue
        same = [j for j in range(n) if has[j] and key[j] == key[i] and session[j] == session[i]]
        calls = [j for j in same if j < i and kind[j] == CALL]
        results = [j for j in same if j > i and kind[j] == RESULT]
        prev_call[i] = calls[-1] if calls else -1
        next_result[i] = results[0] if results else -1
    return prev_call, next_result


@settings(max_examples=200, deadline=None)
@given(corpus=corpora())
def test_pair_order_groups_by_session_and_key_with_positions_ascending(corpus):
    offsets, kind, key, has = corpus
    session = np.repeat(np.arange(len(offsets) - 1, dtype=np.int32), np.diff(offsets))
    # the session goes into the key, as hash(session_id, call_id) does
    key = key ^ (session.astype(np.uint64) * np.uint64(8))
    order = pair_order(key, has, session, offsets[:-1])
    assert sorted(order.tolist()) == np.flatnonzero(has).tolist()
    groups = [order[key[order] == k].tolist() for k in dict.fromkeys(key[order].tolist())]
    assert [i for group in groups for i in group] == order.tolist()  # each key's run is whole
    assert all(group == sorted(group) for group in groups)
    flat = pair_order(key, has)  # the corpus as one session: the same groups
    assert sorted(map(tuple, groups)) == sorted(
        tuple(flat[key[flat] == k].tolist()) for k in set(key[flat].tolist()))
    got = pairs_in_groups(kind, order, key[order], dtype=np.int32)
    assert [a.tolist() for a in got] == [a.tolist() for a in _brute_pairs(kind, key, has, session)]


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(1, 8), min_size=1, max_size=5), data=st.data())
def test_next_flagged_stops_at_the_session_end(sizes, data):
    ends = np.cumsum(sizes)
    n = int(ends[-1])
    flags = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    expected = []
    for g in range(n):
        end = int(ends[np.searchsorted(ends, g, side="right")])
        expected.append(next((j for j in range(g, end) if flags[j]), end))
    for dtype in (np.int32, np.int64):
        got = next_flagged(flags, ends, dtype)
        assert got.dtype == dtype and got.tolist() == expected
