"""A reader's blocks made ahead in a thread (explorer.ingest.prefetch) and a file hashed while
it is read (explorer.ingest.steps.Hashing): the same blocks, progress and errors as made in
line, and nothing left running when the import stops."""

from __future__ import annotations

import hashlib
import shutil
import threading
import time
from pathlib import Path

import pytest

from explorer.ingest.imports import import_paths
from explorer.ingest.prefetch import ahead
from explorer.ingest.steps import Hashing
from explorer.jobs import Cancelled

ROOT = Path(__file__).resolve().parents[1]
CLAUDE = ROOT.parent / "shared" / "corpus" / "claude-code"


def _counting(n: int, made: list, closed: threading.Event, fail_at: int | None = None):
    def make(hook):
        try:
            for i in range(n):
                if i == fail_at:
                    raise ValueError(f"bad block {i}")
                made.append(i)
                if hook:
                    hook(i, n)
                yield i
        finally:
            closed.set()
    return make


def test_blocks_come_in_order_each_after_its_progress_said_in_the_taking_thread():
    made, closed, said = [], threading.Event(), []
    taker = threading.get_ident()

    def progress(done, total):
        said.append((done, total, threading.get_ident()))

    taken = []
    for item in ahead(_counting(50, made, closed), progress, depth=2):
        # what was said before the item came: up to it, never past it
        assert said[-1][:2] == (item, 50)
        taken.append(item)
    assert taken == list(range(50)) and made == taken
    assert [s[:2] for s in said] == [(i, 50) for i in range(50)]
    assert {s[2] for s in said} == {taker}
    assert closed.is_set()


def test_an_error_of_the_maker_is_raised_where_its_block_would_be_taken():
    made, closed, taken = [], threading.Event(), []
    with pytest.raises(ValueError, match="bad block 7"):
        for item in ahead(_counting(20, made, closed, fail_at=7), None):
            taken.append(item)
    assert taken == list(range(7))   # every block made before it was given first
    assert closed.is_set()


def test_closing_the_blocks_stops_the_maker_within_its_depth():
    made, closed = [], threading.Event()
    blocks = ahead(_counting(10_000, made, closed), None, depth=2)
    assert next(blocks) == 0
    time.sleep(0.2)   # time for the maker to run ahead as far as it may
    assert len(made) <= 1 + 2 + 1   # the one taken, two queued, one waiting to be put
    blocks.close()
    assert closed.is_set()   # its iterator closed, its thread joined
    assert not any(t.name == "ingest-ahead" for t in threading.enumerate())


def test_a_hash_made_meanwhile_is_the_file_hash_and_stops_when_cancelled(tmp_path):
    path = tmp_path / "big.bin"
    path.write_bytes(bytes(range(256)) * 200_000)   # 51 MB: several of its 8 MB blocks
    assert Hashing(path).result() == hashlib.sha256(path.read_bytes()).hexdigest()
    hashing = Hashing(path)
    hashing.cancel()
    with pytest.raises(Cancelled):
        hashing.result()
    with pytest.raises(FileNotFoundError):
        Hashing(tmp_path / "gone.jsonl").result()


def test_a_file_changed_within_its_size_is_read_again_and_its_hash_stored(store, tmp_path):
    source = sorted(CLAUDE.rglob("*.jsonl"), key=lambda p: p.stat().st_size)[-1]
    log = tmp_path / source.name
    shutil.copyfile(source, log)
    first = import_paths(store, [log]).files[0]
    assert not first.unchanged and first.events > 0
    stored = store.con.execute("SELECT sha256 FROM files").fetchall()
    assert stored == [(hashlib.sha256(log.read_bytes()).hexdigest(),)]   # hashed meanwhile
    assert import_paths(store, [log]).files[0].unchanged
    data = log.read_bytes()
    at = data.index(b'"type":"user"') + len(b'"type":"')
    log.write_bytes(data[:at] + b"USER" + data[at + 4:])   # same size, other bytes
    again = import_paths(store, [log]).files[0]
    assert not again.unchanged
    stored = store.con.execute("SELECT sha256 FROM files").fetchall()
    assert stored == [(hashlib.sha256(log.read_bytes()).hexdigest(),)]
