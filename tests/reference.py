"""A plain-Python reading of FORMAT.md and AUDITS.md, written independently of the SQL.

Used by the tests to check the DuckDB audits on hand-written and random logs. Slow and
simple on purpose: one loop per rule, over events already deduplicated.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

# Only the names come from the declarations (explorer.audits.rules): every count is computed
# here, on its own. A rule declared there must be computed here too.
from explorer.audits.rules import COUNT_NAMES

COMPUTED = frozenset((
    "events", "sessions", "turns", "calls", "results", "duplicates", "event_id_conflicts",
    "shared_keys", "orphan_results", "dangling_calls", "mispair", "duplicate_call_ids", "missing_child",
    "tie_inversions", "clock_regressions", "ts_ties", "collapsed_keys", "turn_collisions"))
assert COMPUTED == set(COUNT_NAMES), f"the reference lacks {set(COUNT_NAMES) - COMPUTED}"


def order_events(events: list[dict], order: str) -> list[dict]:
    """Events of one session in the viewed order. Each event has seq, sub, eid, ts."""
    by_seq = sorted(events, key=lambda e: (e["seq"], e["sub"], e["eid"]))
    if order == "seq":
        return by_seq
    rank = {id(e): i for i, e in enumerate(by_seq)}
    timed = [e for e in by_seq if e["ts"] is not None]
    untimed = [e for e in by_seq if e["ts"] is None]
    if order == "ts":
        timed.sort(key=lambda e: (e["ts"], rank[id(e)]))
    else:  # ts-unstable: ties in reverse append order
        timed.sort(key=lambda e: (e["ts"], -rank[id(e)]))
    return timed + untimed


def audit(events: list[dict], order: str, duplicates: int = 0,
          duplicate_files: list[tuple[str, int]] = ()) -> dict[str, int]:
    """Every count of AUDITS.md for ``events`` (dicts with the canonical fields and eid).
    ``duplicate_files``: (session_id, file) of each dropped duplicate — a session read from
    two files is shared even when the second file only repeated it (issue 5)."""
    from_duplicates = defaultdict(set)
    for sid, file in duplicate_files:
        from_duplicates[sid].add(file)
    sessions = defaultdict(list)
    for e in events:
        sessions[e["session_id"]].append(e)
    c = Counter()
    c["events"] = len(events)
    c["sessions"] = len(sessions)
    c["duplicates"] = duplicates
    for sid, evs in sessions.items():
        view = order_events(evs, order)
        by_seq = order_events(evs, "seq")
        c["turns"] += sum(e["kind"] == "USER" and not e.get("note") for e in evs)
        c["calls"] += sum(e["kind"] == "CALL" for e in evs)
        c["results"] += sum(e["kind"] == "RESULT" for e in evs)
        ids = Counter(e["event_id"] for e in evs if e.get("event_id") is not None)
        c["event_id_conflicts"] += sum(n for n in ids.values() if n > 1)
        c["shared_keys"] += len({e["file"] for e in evs} | from_duplicates[sid]) > 1
        _pairing(view, c)
        c["missing_child"] += sum(e["kind"] == "CALL" and _child(e) is not None
                                  and _child(e) not in sessions for e in evs)
        _ordering(view, by_seq, c)
        users = {e.get("user_id") for e in evs} - {None}
        c["collapsed_keys"] += len(users) > 1
        turn_users = defaultdict(set)
        for e in evs:
            if e.get("turn") is not None and e.get("user_id") is not None:
                turn_users[e["turn"]].add(e["user_id"])
        c["turn_collisions"] += sum(len(u) > 1 for u in turn_users.values())
    return {k: c[k] for k in COUNT_NAMES}


def _child(e: dict) -> str | None:
    """The sub-agent session a CALL started, as its reader wrote it in raw."""
    raw = e.get("raw")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    added = raw.get("turnscope") if isinstance(raw, dict) else None
    return added.get("subagent_session") if isinstance(added, dict) else None


def _pairing(view: list[dict], c: Counter) -> None:
    calls = Counter(e["call_id"] for e in view if e["kind"] == "CALL" and e.get("call_id"))
    results = Counter(e["call_id"] for e in view if e["kind"] == "RESULT" and e.get("call_id"))
    seen_calls: set[str] = set()
    for e in view:
        cid = e.get("call_id")
        if not cid:
            continue
        if e["kind"] == "CALL":
            seen_calls.add(cid)
            c["dangling_calls"] += results[cid] == 0
        elif e["kind"] == "RESULT":
            c["orphan_results"] += calls[cid] == 0
            c["mispair"] += calls[cid] > 0 and cid not in seen_calls
    c["duplicate_call_ids"] += sum(n >= 2 for n in calls.values())


def _ordering(view: list[dict], by_seq: list[dict], c: Counter) -> None:
    rank = {id(e): i for i, e in enumerate(by_seq)}
    for a, b in zip(view, view[1:]):
        if a["ts"] is not None and a["ts"] == b["ts"] and rank[id(b)] < rank[id(a)]:
            c["tie_inversions"] += 1
    timed = [e["ts"] for e in by_seq if e["ts"] is not None]
    for a, b in zip(timed, timed[1:]):
        c["clock_regressions"] += b < a
        c["ts_ties"] += b == a


def one_to_one(view: list[dict]) -> dict[int, int]:
    """Display pairing: RESULT index -> CALL index (nearest earlier untaken CALL of its id)."""
    open_calls: dict[str, list[int]] = defaultdict(list)
    pairs = {}
    for i, e in enumerate(view):
        cid = e.get("call_id")
        if not cid:
            continue
        if e["kind"] == "CALL":
            open_calls[cid].append(i)
        elif e["kind"] == "RESULT" and open_calls[cid]:
            pairs[i] = open_calls[cid].pop()
    return pairs
