"""The lab (LAB.md): its invariants, the frame format and the .tsframes import."""

from __future__ import annotations

import json
import struct
import zlib

import pytest

from explorer.cli.generate import generate, generate_table, json_records
from explorer.cli.main import main
from explorer.formats import frames as frame_rule
from explorer.lab import frames, trigger_gap


def test_with_no_gap_the_peak_is_max_turns_whatever_the_writers():
    for writers in (1, 4, 8):
        peak, end = trigger_gap.simulate(8, writers, 0, 20_000, seed=3)
        assert peak == end == 8


def test_the_peak_grows_with_writers_and_gap_within_its_bound_and_either_fix_removes_it():
    rows = trigger_gap.run(trigger_gap.DEFAULT_CASES, slots=20_000, seed=1)
    by = {(r["max_turns"], r["writers"], r["gap"]): r for r in rows}
    for r in rows:
        assert r["max_turns"] <= r["peak"] <= r["max_turns"] + r["gap"] * r["writers"]
        assert r["peak_lock"] == r["peak_cas"] == r["max_turns"]
        assert r["end_of_slot_max"] >= r["peak"]
    assert by[8, 1, 0]["peak"] < by[8, 1, 2]["peak"] < by[8, 1, 5]["peak"] < by[8, 4, 5]["peak"] \
        < by[8, 8, 5]["peak"]
    assert by[8, 1, 5]["peak"] == 13      # one writer: exactly G turns arrive in the gap


def test_a_frame_is_length_crc_and_payload():
    payload = b'{"session_id":"s","kind":"USER"}'
    frame = frame_rule.encode(payload)
    assert frame[:8] == struct.pack(">II", len(payload), zlib.crc32(payload))
    assert frame[8:] == payload
    data = frame + frame[:10] + frame          # a torn frame between two good ones
    got = list(frame_rule.frames(data))
    assert [f.payload for f in got] == [payload, None, payload]
    assert got[1].length == 10 and "CRC" in got[1].reason   # its length reaches into the next


@pytest.fixture(scope="module")
def records():
    return json_records(generate_table(sessions=40, turns=10, seed=2))[:2000]


def _row(rows, damage, reader):
    (row,) = [r for r in rows if r["damage"] == damage and r["reader"] == reader]
    return row


def test_the_frame_reader_recovers_every_record_before_a_tear_and_detects_it(records):
    rows = frames.run(records, ks=(700,))
    for damage in ("tail", "tail-brace"):
        f = _row(rows, damage, "frames")
        assert (f["recovered"], f["torn"], f["garbage"], f["lost"]) == (700, 1, 0, 1)
        s = _row(rows, damage, "strict-lines")
        assert (s["recovered"], s["torn"], s["garbage"]) == (700, 1, 0)
    # the lax reader takes the record torn before its brace for one
    assert _row(rows, "tail-brace", "lax-lines")["garbage"] == 1
    assert _row(rows, "tail-brace", "lax-lines")["torn"] == 0


def test_interleaving_shows_what_each_reader_loses(records):
    rows = frames.run(records, ks=(700,), damages=("interleaved",))
    n = len(records)
    f, s, lax = (_row(rows, "interleaved", r) for r in ("frames", "strict-lines", "lax-lines"))
    assert (f["recovered"], f["lost"], f["torn"], f["garbage"]) == (n - 1, 1, 1, 0)
    # newline framing glues the torn half onto record K+2: both lost
    assert (s["recovered"], s["lost"], s["torn"], s["garbage"]) == (n - 2, 2, 1, 0)
    assert (lax["recovered"], lax["lost"], lax["torn"], lax["garbage"]) == (n - 2, 2, 0, 1)
    assert f["bytes"] - s["bytes"] == n * (frame_rule.HEADER - 1)


def _counts(capsys, path) -> dict:
    assert main(["audit", str(path), "--json"]) in (0, 2)
    return json.loads(capsys.readouterr().out)


def test_tsframes_import_like_json_lines_and_count_each_torn_frame(capsys, tmp_path):
    framed, lines = tmp_path / "g.tsframes", tmp_path / "g.jsonl"
    n = generate(framed, sessions=6, turns=4, seed=4)
    assert generate(lines, sessions=6, turns=4, seed=4) == n
    assert _counts(capsys, framed)["events"] == _counts(capsys, lines)["events"] == n
    data = framed.read_bytes()
    starts = [f.offset for f in frame_rule.frames(data)]
    k = n // 2
    cut = tmp_path / "cut.tsframes"
    cut.write_bytes(data[:starts[k]] + data[starts[k]:starts[k + 1]][:20])
    counts = _counts(capsys, cut)
    assert (counts["events"], counts["rejected"]) == (k, 1)
    mixed = tmp_path / "mixed.tsframes"
    mixed.write_bytes(data[:starts[k]] + data[starts[k]:starts[k] + 15] + data[starts[k + 1]:])
    counts = _counts(capsys, mixed)
    assert (counts["events"], counts["rejected"]) == (n - 1, 1)


def test_generate_framed_writes_frames_whatever_the_extension(tmp_path):
    out = tmp_path / "g.bin"
    assert main(["generate", str(out), "--sessions", "2", "--turns", "2", "--framed"]) == 0
    got = list(frame_rule.frames(out.read_bytes()))
    assert got and all(f.payload is not None for f in got)
    assert all(json.loads(f.payload)["session_id"] for f in got)


def test_lab_estimates_keeps_structure_and_moves_budget_figures(capsys, tmp_path):
    path = tmp_path / "clean.jsonl"
    generate(path, sessions=20, turns=8, seed=6, text=True)
    load_args = ["lab", "estimates", str(path), "--estimates", "1.5:4,4:8", "--budgets",
                 "400,1600", "--json"]
    assert main(load_args) == 0
    rows = json.loads(capsys.readouterr().out)
    m1 = [r for r in rows if r["strategy"] == "M1"]
    assert all(set(r["figures"]["orphan_results"].values()) == {0} for r in m1)
    assert any("kept_cost" in r["changed"] for r in rows)
    assert all("windows" not in r["changed"] for r in rows)
    for r in rows:
        assert r["changed"] == [f for f, v in r["figures"].items() if len(set(v.values())) > 1]


def test_lab_json_keys(capsys):
    assert main(["lab", "trigger-gap", "--slots", "500", "--cases", "8:2:3", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert tuple(row) == trigger_gap.KEYS
    assert main(["lab", "frames", "--records", "300", "--ks", "100", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 9 and all(tuple(r) == frames.KEYS for r in rows)
    assert main(["lab", "frames", "--records", "300", "--ks", "299"]) == 2
    assert "K 299" in capsys.readouterr().err

