"""Following a growing log (explorer.ingest.follow): a real Claude Code transcript written
line by line, a torn last line, a truncated and a replaced file, a folder gaining a file."""

from __future__ import annotations

import os
from pathlib import Path

from explorer.ingest.follow import Follower
from explorer.store.db import Store

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
LOG = CORPUS / "jnarowski-agentcmd__full-session.jsonl"


def lines() -> list[bytes]:
    return LOG.read_bytes().splitlines(keepends=True)


def records(store) -> int:
    return store.frame("list_files").to_dicts()[0]["records"]


def test_new_lines_are_imported_and_a_torn_line_waits(tmp_path):
    all_lines = lines()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(all_lines[:10]))
    store, follower = Store(None), Follower(path, settle=60)
    assert follower.catch_up(store).files[0].records == 10
    assert follower.catch_up(store).files == []   # nothing new: nothing read
    with open(path, "ab") as fh:
        fh.write(b"".join(all_lines[10:20]) + all_lines[20][:50])   # the 21st line torn
    report = follower.catch_up(store)   # the complete lines only: the torn one waits
    assert report.files[0].appended == 10 and report.files[0].records == 20
    assert follower.catch_up(store).files == []
    assert records(store) == 20
    with open(path, "ab") as fh:
        fh.write(all_lines[20][50:])
    report = follower.catch_up(store)
    assert report.files[0].records == 21 and report.files[0].rejected == 0
    assert report.files[0].appended == 1   # the completed line alone was read
    assert store.con.execute("SELECT count(*) FROM files").fetchone()[0] == 1


def test_a_torn_line_that_stays_is_imported_after_settling(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines()[:5]) + b'{"type": "us')
    store, follower = Store(None), Follower(path, settle=0.5)
    assert follower.catch_up(store, ).files == []
    report = follower.due(now=10**9)
    assert [p for p, _ in report] == [path]


def test_truncated_and_replaced_files_are_read_again(tmp_path):
    all_lines = lines()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(all_lines[:30]))
    store, follower = Store(None), Follower(path)
    follower.catch_up(store)
    path.write_bytes(b"".join(all_lines[:8]))   # truncated in place
    assert follower.catch_up(store).files[0].records == 8
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"".join(all_lines[:12]))
    os.replace(replacement, path)   # a new inode under the same name
    assert follower.catch_up(store).files[0].records == 12
    assert records(store) == 12
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    fresh = Store(None)
    Follower(path).catch_up(fresh)
    assert fresh.con.execute("SELECT count(*) FROM events").fetchone()[0] == events


def test_a_folder_gains_files_and_its_other_files_are_not_errors(tmp_path):
    (tmp_path / "notes.txt").write_text("not a log\n")
    first = tmp_path / "a.jsonl"
    first.write_bytes(b"".join(lines()[:6]))
    store, follower = Store(None), Follower(tmp_path)
    report = follower.catch_up(store)
    assert [Path(f.path).name for f in report.files] == ["a.jsonl"] and not report.errors
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "b.jsonl").write_bytes((CORPUS / "marot-spotter__agent-aac57f5.jsonl").read_bytes())
    report = follower.catch_up(store)
    assert [Path(f.path).name for f in report.files] == ["b.jsonl"] and not report.errors
    assert store.con.execute("SELECT count(*) FROM files").fetchone()[0] == 2


def test_a_file_rewritten_in_place_and_longer_is_read_whole(tmp_path):
    # same inode and longer, but its bytes before where reading stopped changed: not a growth
    all_lines = lines()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(all_lines[:10]))
    store, follower = Store(None), Follower(path)
    follower.catch_up(store)
    with open(path, "ab") as fh:
        fh.write(b"".join(all_lines[10:15]))
    assert follower.catch_up(store).files[0].appended == 5
    inode = path.stat().st_ino
    with open(path, "r+b") as fh:   # the first records replaced by later ones, in place
        fh.write(b"".join(all_lines[5:25]))
    assert path.stat().st_ino == inode
    report = follower.catch_up(store)
    assert report.files[0].appended == 0   # read whole
    fresh = Store(None)
    Follower(path).catch_up(fresh)
    assert records(store) == records(fresh) == 20
