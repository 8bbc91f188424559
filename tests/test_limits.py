"""What reading one file may cost (issue 14, items 3, 6 and 8): each limit of
explorer.formats.limits scaled down here, the line or file past it rejected with the limit
named and what came before kept; .eval archives cut short or damaged keep their whole
samples; the limits as flags and as the window's setting."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.formats import limits
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def limited():
    """Set limits for one test (the others keep their defaults); the defaults after it."""
    def set_limits(**values: int) -> None:
        limits.configure(dataclasses.replace(limits.DEFAULTS, **values), {})
    yield set_limits
    limits.configure(limits.DEFAULTS, {})


def _row(seq: int, text: str = "hi") -> bytes:
    return json.dumps({"session_id": "s", "seq": seq, "kind": "USER", "text": text}).encode()


def _imported(store, path: Path):
    report = import_paths(store, [path])
    assert not report.errors, report.errors
    seqs = [s for (s,) in store.con.execute("SELECT seq FROM events ORDER BY eid").fetchall()]
    rejected = store.con.execute("SELECT line, reason FROM rejected ORDER BY line").fetchall()
    return seqs, rejected


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_line_past_the_limit_is_rejected_and_the_lines_around_it_kept(store, tmp_path, gz,
                                                                          limited):
    limited(max_line_bytes=4096)
    data = b"\n".join([_row(1), _row(2, "x" * 10_000), _row(3), b""])
    path = tmp_path / ("long.jsonl.gz" if gz else "long.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    seqs, rejected = _imported(store, path)
    assert seqs == [1, 3]
    assert rejected == [(2, "line longer than the 4 KiB limit (--max-line-bytes)")]


def test_an_agent_log_line_past_the_limit_is_one_rejected_record(tmp_path, limited):
    from explorer.formats import lines
    limited(max_line_bytes=2048)
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "' + b"y" * 5000 + b'"}\n{"c": 3}\n{"d": "' + b"z" * 3000)
    got = [(line.number, line.data[:8], line.error) for line in lines.lines(path)]
    long = "line longer than the 2 KiB limit (--max-line-bytes)"
    assert got == [(1, b'{"a": 1}', None), (2, b"", long), (3, b'{"c": 3}', None), (4, b"", long)]


def test_gzip_past_the_decompressed_size_keeps_the_lines_within_it(store, tmp_path, limited):
    limited(max_decompressed_bytes=2000)
    rows = [_row(i, "t" * 60) for i in range(1, 101)]
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(rows) + b"\n"))
    seqs, rejected = _imported(store, path)
    whole = 2000 // (len(rows[0]) + 1)
    assert seqs == list(range(1, whole + 1))
    assert len(rejected) == 1 and rejected[0][0] == whole + 1
    assert "the text expands past the 2000 bytes limit (--max-decompressed-bytes)" in rejected[0][1]


def test_a_gzip_bomb_stops_at_the_ratio_limit(store, tmp_path, limited):
    limited(ratio_floor_bytes=64 * 1024)
    path = tmp_path / "newlines.jsonl.gz"
    path.write_bytes(gzip.compress(_row(1) + b"\n" * (8 * 1024 * 1024)))
    seqs, rejected = _imported(store, path)
    assert seqs == [1]
    assert len(rejected) == 1
    assert "past the 200x limit (--max-ratio) (a decompression bomb?)" in rejected[0][1]


def _laughs(levels: int, fan: int = 9) -> str:
    """A cassette whose aliases repeat ``fan ** levels`` nodes in a few hundred bytes."""
    out = ["interactions:", "- request:", "    uri: https://api.anthropic.com/v1/messages",
           '    body: &a0 ["lol", "lol"]']
    for i in range(1, levels + 1):
        out.append(f"    h{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    out.append("  response: {body: {string: x}}")
    return "\n".join(out) + "\n"


def test_yaml_aliases_past_the_limit_reject_the_cassette(store, tmp_path, limited):
    limited(max_yaml_alias_nodes=1000)
    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs(4))
    report = import_paths(store, [path])
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert report.files[0].rejected == 1
    assert reason.startswith("not readable as a YAML cassette: its aliases repeat ")
    assert reason.endswith("nodes, more than the 1,000 limit (--max-yaml-alias-nodes)")


def test_yaml_aliases_within_the_limit_are_read(tmp_path, limited):
    from explorer.formats import cassette
    limited(max_yaml_alias_nodes=100_000)
    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs(4))
    assert len(cassette.load(path)) == 1


def test_json_depth_is_a_limit(store, tmp_path, limited):
    limited(max_json_depth=8)
    deep = json.dumps({"session_id": "s", "seq": 2, "kind": "USER", "text": "x",
                       "raw": json.loads("[" * 10 + "]" * 10)}).encode()
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"\n".join([_row(1), deep, _row(3), b""]))
    seqs, rejected = _imported(store, path)
    assert seqs == [1, 3]
    assert rejected == [(2, "JSON nested deeper than 8 levels, the limit (--max-json-depth)")]


# .eval archives


def _sample(n: int, text: str = "hello") -> dict:
    return {"id": n, "epoch": 1, "events": [],
            "messages": [{"id": f"m{n}", "role": "user", "content": text}]}


def _eval(path: Path, samples: list, stream: bool = False) -> Path:
    """An .eval archive (Inspect's layout); ``samples``: dicts, or bytes as an entry's data.
    ``stream``: written as to a pipe (each entry followed by a data descriptor)."""
    buffer = io.BytesIO()
    target = _Unseekable(buffer) if stream else buffer
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps({"eval": {"eval_id": "E", "task": "t"}}))
        for i, s in enumerate(samples, 1):
            zf.writestr(f"samples/{i}_epoch_1.json", s if isinstance(s, bytes) else json.dumps(s))
        zf.writestr("header.json", json.dumps({"version": 2, "eval": {"eval_id": "E",
                                                                       "task": "t"}}))
    path.write_bytes(buffer.getvalue())
    return path


class _Unseekable(io.RawIOBase):
    def __init__(self, buffer: io.BytesIO) -> None:
        self.buffer = buffer

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return self.buffer.write(data)


def _sessions(store) -> list[str]:
    return [s for (s,) in store.con.execute(
        "SELECT DISTINCT session_id FROM events ORDER BY session_id").fetchall()]


def _data_of(path: Path, name: str) -> tuple[int, int]:
    """Where the entry ``name``'s compressed data starts in the archive, and its size."""
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    raw = path.read_bytes()
    nlen, xlen = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], "little"), \
        int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
    return info.header_offset + 30 + nlen + xlen, info.compress_size


@pytest.mark.parametrize("stream", [False, True], ids=["sizes", "data-descriptor"])
def test_an_eval_cut_short_keeps_its_whole_samples(store, tmp_path, stream):
    path = _eval(tmp_path / "cut.eval", [_sample(1), _sample(2), _sample(3, "z" * 5000)],
                 stream=stream)
    start, size = _data_of(path, "samples/3_epoch_1.json")
    path.write_bytes(path.read_bytes()[:start + size // 2])
    report = import_paths(store, [path])
    assert not report.errors
    assert _sessions(store) == ["E/1/1", "E/2/1"]
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason.startswith("the .eval archive is cut short: the archive ends inside the "
                             "entry samples/3_epoch_1.json")


def test_an_eval_cut_between_entries_says_so(store, tmp_path):
    path = _eval(tmp_path / "cut.eval", [_sample(1), _sample(2)])
    with zipfile.ZipFile(path) as zf:
        end = zf.getinfo("header.json").header_offset
    path.write_bytes(path.read_bytes()[:end])
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1", "E/2/1"]
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason == (f"the .eval archive is cut short: the archive ends early, at byte {end}, "
                      "after 3 whole entries (no central directory)")


def test_an_eval_with_a_flipped_byte_rejects_that_sample_only(store, tmp_path):
    path = _eval(tmp_path / "flip.eval", [_sample(1), _sample(2, "w" * 3000), _sample(3)])
    start, size = _data_of(path, "samples/2_epoch_1.json")
    raw = bytearray(path.read_bytes())
    raw[start + size // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1", "E/3/1"]
    (text, reason), = store.con.execute("SELECT text, reason FROM rejected").fetchall()
    assert text == "samples/2_epoch_1.json"
    assert reason.startswith("entry samples/2_epoch_1.json: the entry")
    assert "damaged" in reason


def test_a_nested_zip_as_a_sample_is_a_rejected_record(store, tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("x.json", "{}" * 100)
    path = _eval(tmp_path / "nested.eval", [_sample(1), inner.getvalue(), _sample(3)])
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1", "E/3/1"]
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason.startswith("entry samples/2_epoch_1.json: not UTF-8 text")


def test_an_eval_entry_past_the_limit_is_rejected(store, tmp_path, limited):
    limited(max_line_bytes=4096)
    path = _eval(tmp_path / "big.eval", [_sample(1), _sample(2, "b" * 20_000)])
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1"]
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason == ("entry samples/2_epoch_1.json: entry larger than the 4 KiB limit "
                      "(--max-line-bytes)")


# The flags and the window's setting


def test_the_flags_set_the_limits(tmp_path, capsys):
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\n".join([_row(1), _row(2, "x" * 10_000), b""]))
    assert main(["audit", str(path), "--json", "--max-line-bytes", "4K"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rejected"] == 1 and doc["events"] == 1
    assert limits.current().max_line_bytes == 4096


def test_a_flag_that_is_no_number_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(tmp_path / "x.jsonl"), "--max-ratio", "lots"])
    assert exc.value.code == 2
    assert "--max-ratio: not a positive number" in capsys.readouterr().err


def test_the_window_setting_is_saved_applied_and_under_the_flags(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from widgets.limits_dialog import LimitsDialog, apply_saved
    settings = QSettings(str(tmp_path / "t.ini"), QSettings.Format.IniFormat)
    dialog = LimitsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.fields["max_line_bytes"].setText("1M")
    dialog.fields["max_ratio"].setText("none")
    dialog.accept()
    assert "Decompressed bytes per compressed byte" in dialog.error.text()
    dialog.fields["max_ratio"].setText("50")
    dialog.accept()
    assert limits.current().max_line_bytes == limits.MiB and limits.current().max_ratio == 50
    limits.configure(limits.DEFAULTS, {"max_ratio": 7})  # as the command line's --max-ratio 7
    apply_saved(settings)
    assert limits.current().max_line_bytes == limits.MiB and limits.current().max_ratio == 7


@pytest.mark.slow
def test_a_real_gzip_bomb_under_a_memory_cap(tmp_path):
    """One 6 GiB line in 6 MB of gzip, read under a 4 GB address-space cap: the reading
    stopped at the ratio limit inside it, the line before imported, no MemoryError."""
    path = tmp_path / "bomb.jsonl.gz"
    member = gzip.compress(b"a" * (64 * 1024 * 1024), 1)  # gzip members may follow each other
    with open(path, "wb") as out:
        out.write(gzip.compress(_row(1) + b"\n" + b'{"session_id": "s", "text": "'))
        out.writelines([member] * 96)
    run = subprocess.run(["prlimit", "--as=4000000000", sys.executable, "-m",
                          "explorer.cli.main", "audit", str(path), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr, run.stderr
    doc = json.loads(run.stdout)
    assert doc["events"] == 1 and doc["rejected"] == 1
    assert "past the 200x limit (--max-ratio)" in run.stderr


def test_a_damaged_header_json_falls_back_to_the_journal_start(store, tmp_path):
    path = _eval(tmp_path / "header.eval", [_sample(1)])
    start, size = _data_of(path, "header.json")
    raw = bytearray(path.read_bytes())
    raw[start + size // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1"]


def test_a_damaged_local_header_rejects_its_entry_only(store, tmp_path):
    path = _eval(tmp_path / "local.eval", [_sample(1), _sample(2), _sample(3)])
    with zipfile.ZipFile(path) as zf:
        at = zf.getinfo("samples/2_epoch_1.json").header_offset
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0xFF  # the local header's signature
    path.write_bytes(bytes(raw))
    import_paths(store, [path])
    assert _sessions(store) == ["E/1/1", "E/3/1"]
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason == f"entry samples/2_epoch_1.json: no local header at byte {at}"


def test_a_sample_that_is_no_object_is_a_rejected_record(store, tmp_path):
    path = _eval(tmp_path / "list.eval", [b"[1, 2]", _sample(2)])
    import_paths(store, [path])
    assert _sessions(store) == ["E/2/1"]
    assert store.con.execute("SELECT reason FROM rejected").fetchall() == [
        ("entry samples/1_epoch_1.json: a JSON list, not an object",)]


def test_a_gzip_document_past_the_limit_is_one_rejected_record(store, tmp_path, limited):
    """A whole-document reader (SWE-agent's .traj) inflates within the limits too: the real
    trajectory gzipped reads as itself, and past a small limit is one rejected record."""
    real = CORPUS / "swe-agent" / ("princeton-nlp-SWE-agent__marshmallow-code__"
                                   "marshmallow-1867.traj")
    path = tmp_path / "run.traj.gz"
    path.write_bytes(gzip.compress(real.read_bytes()))
    gzipped, plain = (import_paths(store, [p]).files[0] for p in (path, real))
    assert gzipped.events == plain.events > 0 and gzipped.rejected == plain.rejected
    limited(max_line_bytes=4096)
    other = tmp_path / "other.traj.gz"
    other.write_bytes(gzip.compress(real.read_bytes()))
    report = import_paths(store, [other]).files[0]
    assert (report.events, report.rejected) == (0, 1)
    reasons = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert ("document longer than the 4 KiB limit (--max-line-bytes)",) in reasons


def test_a_gzip_spring_ai_dump_past_the_ratio_limit_is_refused(store, tmp_path, limited):
    """The Spring AI dump reader (CSV or JSON through one stream, no real file: rows built
    from SPRING-AI-SESSION.md by the format's tests) inflates within the limits too."""
    from tests.test_format_spring_ai import sample_rows, write_csv
    rows = sample_rows()
    plain = write_csv(tmp_path / "events.csv", rows)
    path = tmp_path / "events.csv.gz"
    path.write_bytes(gzip.compress(plain.read_bytes()))
    within = import_paths(store, [path])
    assert not within.errors and within.files[0].events > 0
    limited(max_ratio=1, ratio_floor_bytes=16)   # any gzip of text expands more than that
    bomb = tmp_path / "bomb.csv.gz"
    bomb.write_bytes(path.read_bytes())
    refused = import_paths(store, [bomb])
    assert len(refused.errors) == 1 and not refused.files
    assert "bomb.csv.gz" in str(refused.errors[0]) and "(--max-ratio)" in str(refused.errors[0])


def test_every_gzip_stream_goes_through_the_one_bounded_inflater():
    """Issue 15: lines, documents, dumps, recorded bodies and file heads inflate gzip through
    explorer/formats/inflate.py only (zip entries are raw deflate, in zip_entries.py)."""
    formats_dir = ROOT / "explorer" / "formats"
    users = {p.name for p in formats_dir.glob("*.py")
             if any(s in p.read_text() for s in ("decompressobj(16", "decompressobj(wbits=31",
                                                 "gzip.GzipFile", "gzip.decompress", "gzip.open"))}
    assert users == {"inflate.py"}


@pytest.mark.parametrize("reader", ["spring-ai-session", "swe-agent"])
def test_a_gzip_document_past_a_limit_is_refused_naming_it(store, tmp_path, limited, reader):
    """The dumps and documents read whole (Spring AI, SWE-agent) stop at the limits too."""
    limited(max_line_bytes=64 * 1024, ratio_floor_bytes=64 * 1024)
    if reader == "swe-agent":
        doc = json.loads((CORPUS / "swe-agent" / "princeton-nlp-SWE-agent__6e44b9__"
                          "sweagenttestrepo-1c2844.traj").read_text())
        doc["info"]["padding"] = " " * (1024 * 1024)
        path = tmp_path / "run.traj.gz"
        path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    else:
        from tests.test_format_spring_ai import sample_rows, write_jsonl
        rows = write_jsonl(tmp_path / "rows.jsonl", sample_rows()).read_bytes()
        path = tmp_path / "events.jsonl.gz"
        path.write_bytes(gzip.compress(rows + b"\n" * (8 * 1024 * 1024)))
    report = import_paths(store, [path])
    said = [str(e) for e in report.errors] + [r for (r,) in store.con.execute(
        "SELECT reason FROM rejected").fetchall()]
    assert any("--max-line-bytes" in s or "--max-ratio" in s for s in said), said
