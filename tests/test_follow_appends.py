"""A followed file read in many appends gives the store that importing its final version
once gives (explorer.ingest.appending): the same events in the same order, details,
duplicates, rejected records, file counts and audit figures — for real Claude Code
transcripts (messages split over lines whose usage grows, a resumed session's copies) and
canonical JSON Lines (seq assigned or given, copies, rejected rows)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.cli.audit import ledger
from explorer.ingest.follow import Follower
from explorer.ingest.imports import import_paths
from explorer.model import CostSettings, Order
from explorer.store.db import Store

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
TABLES = {
    "events": "SELECT * EXCLUDE (eid), rank() OVER (ORDER BY eid) AS pos FROM events",
    "details": "SELECT d.* EXCLUDE (eid), rank() OVER (ORDER BY e.eid) AS pos "
               "FROM event_details d JOIN events e USING (eid)",
    # a copy names the event kept by its place, not its import position
    "duplicates": "SELECT d.* EXCLUDE (kept_eid), e.line AS kept_line, e.sub AS kept_sub "
                  "FROM duplicates d JOIN events e ON e.eid = d.kept_eid",
    "rejected": "SELECT * FROM rejected",
    "files": "SELECT * EXCLUDE (imported_at) FROM files",
    "conflicts": "SELECT * FROM conflicts",
}


def store_state(store: Store) -> dict:
    """What the store holds, in an order that does not depend on import positions."""
    state = {name: sorted(map(repr, store.con.execute(sql).fetchall()))
             for name, sql in TABLES.items()}
    state["counts"] = audits.corpus_counts(store, Order.SEQ, CostSettings())
    state["findings"] = sorted(map(repr, audits.findings(store, Order.SEQ)))
    state["usage"] = ledger(store)
    return state


def follow_in_pieces(data: bytes, path: Path, seed: int) -> tuple[Store, list]:
    """Write ``data`` to ``path`` a few lines at a time, a piece often ending mid-line (the
    next one completes it), catching up after each; the reports of the catch-ups."""
    rng = random.Random(seed)
    ends = [i + 1 for i, byte in enumerate(data) if byte == 10]
    store, follower = Store(None), Follower(path, settle=600)
    path.write_bytes(b"")
    reports, at, line = [], 0, 0
    while at < len(data):
        line = min(line + rng.randint(1, 4), len(ends) - 1)
        end = ends[line]
        if rng.random() < 0.4 and line + 1 < len(ends):   # into the next line
            end = rng.randint(end + 1, ends[line + 1] - 1)
        with open(path, "ab") as fh:
            fh.write(data[at:end])
        at = end
        reports.append(follower.catch_up(store))
    return store, reports


def once(data: bytes, path: Path) -> Store:
    path.write_bytes(data)
    store = Store(None)
    import_paths(store, [path])
    return store


def check_same(tmp_path: Path, data: bytes, name: str, seed: int = 1) -> list:
    followed = tmp_path / "followed" / name
    whole = tmp_path / "whole" / name
    followed.parent.mkdir()
    whole.parent.mkdir()
    store, reports = follow_in_pieces(data, followed, seed)
    got = store_state(store)
    want = store_state(once(data, whole))
    for key in ("files",):   # the paths differ, and only them
        got[key] = [r.replace(str(followed), "P") for r in got[key]]
        want[key] = [r.replace(str(whole), "P") for r in want[key]]
    for key in want:
        assert got[key] == want[key], key
    return [f for r in reports for f in r.files]


@pytest.mark.parametrize("name", ["jnarowski-agentcmd__full-session.jsonl",
                                  "marot-spotter__agent-aac57f5.jsonl"])
def test_claude_code_followed_in_pieces_is_the_file_imported_once(tmp_path, name):
    lines = (CORPUS / name).read_bytes().splitlines(keepends=True)
    # a resumed session copies earlier records: those lines again, at the end
    data = b"".join(lines) + b"".join(lines[3:9])
    files = check_same(tmp_path, data, name)
    appended = [f for f in files if f.appended]
    assert len(appended) > 10   # read in appends, not whole again
    assert files[-1].duplicates > 0 and files[-1].records == len(lines) + 6


def canonical_lines(seq: bool) -> list[bytes]:
    """A canonical log: two sessions, copies of an event (same id and content), a key on
    two contents (a conflict), rejected rows (no kind, not JSON, an unknown kind)."""
    rows = []
    for i in range(60):   # rows 25-39 copy rows 0-14; rows 50-59 share keys, not texts
        j = i % 25
        row = {"session_id": f"s{i // 40}", "kind": ("USER", "CALL", "RESULT", "ASSISTANT")[j % 4],
               "event_id": f"e{j}", "text": f"text {j}" if i < 50 else "other"}
        if row["kind"] in ("CALL", "RESULT"):
            row["call_id"] = f"c{j // 4}"
        if seq:
            row["seq"] = 100 - i if i % 7 else 5
        rows.append(json.dumps(row).encode() + b"\n")
    rows[10] = b'{"session_id": "s0", "text": "no kind"}\n'
    rows[33] = b"not json at all\n"
    rows[47] = b'{"session_id": "s1", "kind": "SHOUT"}\n'
    rows.insert(20, b"\n")
    return rows


@pytest.mark.parametrize("seq", [False, True])
def test_canonical_jsonl_followed_in_pieces_is_the_file_imported_once(tmp_path, seq):
    data = b"".join(canonical_lines(seq))
    files = check_same(tmp_path, data, "events.jsonl", seed=3)
    assert sum(1 for f in files if f.appended) > 5
    assert files[-1].rejected == 3 and files[-1].duplicates > 0


def test_seq_given_after_rows_without_it_reads_the_file_whole(tmp_path):
    # the earlier rows had seq assigned; a row carrying it makes them rejected: read whole
    rows = canonical_lines(False)
    data = b"".join(rows[:30]) + b'{"session_id": "s0", "kind": "USER", "seq": 1}\n'
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(rows[:30]))
    store, follower = Store(None), Follower(path)
    follower.catch_up(store)
    path.write_bytes(data)
    report = follower.catch_up(store)
    assert report.files[0].appended == 0 and report.files[0].rejected > 25
    assert store_state(store)["events"] == store_state(once(data, tmp_path / "o.jsonl"))["events"]
