"""Session identity, for auditors (issue 15; README "Session identity"): what the chain of
Claude Code records says about where a session's history comes from.

- ``replayed_records``: records (by ``uuid``) stored from two or more files: a resumed
  session replays its history into its new file;
- ``forked_chains``: records that two or more records name as their parent, not counting
  the later lines of the parent's own API message (Claude Code writes one content block a
  line, each naming the line before): a rewind, an edit or a retry;
- ``unreachable_records``: records of a session that its last record does not reach by
  following parents up (``parentUuid``, or a compact boundary's ``logicalParentUuid``),
  with the other lines of each message reached and the tool results answering it: what
  resuming the session would not load;
- ``session_id_reuse``: one ``sessionId`` written from two working directories (``cwd``) or
  by two users.

The links are read from each stored record's ``raw`` (queries/identity_records.sql). Progress
and snapshot records are skipped by the reader and not stored: a parent that is not stored
is taken to be the record stored just before the child in its session.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import queries
from explorer.store.db import Db

#: The counts, in the order they are printed (``audit --json`` keys).
COUNT_NAMES = ("replayed_records", "forked_chains", "unreachable_records", "session_id_reuse")


def identity(db: Db) -> tuple[dict[str, int], list[dict]]:
    """The counts and their findings (``{"rule", "session_id", "events"}``, events as
    AUDITS.md's findings name them)."""
    cur = db.con.execute(queries.render("identity_records"))
    rows = [row for block in iter(lambda: cur.fetchmany(10_000), []) for row in block]
    units: list[tuple[str, str, list[int]]] = []
    units += _replayed(rows)
    stored = [r for r in rows if not r[10]]
    by_session: dict[str, list[tuple]] = defaultdict(list)
    for row in stored:
        by_session[row[3]].append(row)
    for session_id, records in by_session.items():
        units += _chain_units(session_id, records)
    units += _reuse(stored)
    counts = dict.fromkeys(COUNT_NAMES, 0)
    for rule, _, eids in units:
        counts[rule] += len(eids) if rule == "unreachable_records" else 1
    return counts, list(_findings(db, units))


def _replayed(rows: list[tuple]) -> Iterator[tuple[str, str, list[int]]]:
    files: dict[str, dict[int, int]] = defaultdict(dict)
    session: dict[str, str] = {}
    for file_id, uuid, eid, session_id, *_ in rows:
        files[uuid].setdefault(file_id, eid)
        session.setdefault(uuid, session_id)
    for uuid, where in files.items():
        if len(where) > 1:
            yield "replayed_records", session[uuid], sorted(set(where.values()))


def _chain_units(session_id: str, records: list[tuple]) -> Iterator[tuple[str, str, list[int]]]:
    """The forks and the unreachable records of one session (records in import order)."""
    first: dict[str, tuple] = {}
    for row in records:
        first.setdefault(row[1], row)
    order = list(first.values())
    parent: dict[str, str | None] = {}
    for before, row in zip([None, *order], order):
        link = row[5]
        if link is None or link in first:
            parent[row[1]] = link
        else:   # a parent not stored (progress, a snapshot): the record stored before
            parent[row[1]] = before[1] if before is not None else None
    message = {row[1]: row[6] for row in order}
    children: dict[str, list[str]] = defaultdict(list)
    for uuid, up in parent.items():
        if up is not None and up != uuid:
            children[up].append(uuid)
    for up, kids in children.items():
        others = [k for k in kids if message[k] is None or message[k] != message[up]]
        if len(others) > 1:
            yield "forked_chains", session_id, [first[up][2]] + [first[k][2] for k in others]
    reached: set[str] = set()
    at: str | None = order[-1][1]
    while at is not None and at not in reached:
        reached.add(at)
        at = parent[at]
    messages = {message[u] for u in reached if message[u] is not None}
    reached |= {u for u in first if message[u] is not None and message[u] in messages}
    reached |= {u for u in first if first[u][7] and parent[u] in reached}
    lost = [first[u][2] for u in first if u not in reached]
    if lost:
        yield "unreachable_records", session_id, lost


def _reuse(stored: list[tuple]) -> Iterator[tuple[str, str, list[int]]]:
    writers: dict[str, dict[tuple, int]] = defaultdict(dict)
    for row in stored:
        if row[4] is not None:
            writers[row[4]].setdefault((row[8], row[9]), row[2])
    for source, seen in writers.items():
        cwds = {cwd for cwd, _ in seen if cwd is not None}
        users = {user for _, user in seen if user is not None}
        if len(cwds) > 1 or len(users) > 1:
            yield "session_id_reuse", source, sorted(seen.values())


def _findings(db: Db, units: list[tuple[str, str, list[int]]]) -> Iterator[dict]:
    eids = sorted({eid for _, _, found in units for eid in found})
    named = {}
    for start in range(0, len(eids), 10_000):
        for eid, seq, sub, kind, call_id in db.run("identity_events",
                                                   eids=eids[start:start + 10_000]):
            named[eid] = {"seq": seq, "sub": sub, "kind": kind, "call_id": call_id}
    for rule, session_id, found in units:
        yield {"rule": rule, "session_id": session_id,
               "events": [named[eid] for eid in found if eid in named]}
