"""Deterministic synthetic corpus of canonical session logs (FORMAT.md), for benchmarks and tests.

Many sessions run concurrently; each is `turns` turns of USER, tool CALL/RESULT pairs and a final
ASSISTANT. Their events are merged in time order into one file whose `seq` is the global append
counter. Faults can be injected: lost CALL writes (orphan results), retried writes (duplicate
rows with one `event_id`), a coarse clock (`ts` floored to 10 ms: ties and regressions), collapsed
storage keys (`groups`) and a small call-id space (`id_space`).

Everything is drawn from one `numpy.random.default_rng(seed)` in a fixed order and built with
whole-array operations (no Python loop per event), so equal arguments give byte-identical files.
The fault draws are made whatever their probabilities, so a faulty corpus is the clean corpus of
the same seed with the faults applied.

Decisions where the brief left room:
- `event_id` `evt-n` numbers every event the writer produced, lost CALLs included: a lost write
  leaves a gap in the numbers. The per-session call counter of `call_{i:06d}_{m}` starts at 1.
- A retried row's copy is stamped (original `ts` after any flooring) + 1..20 ms.
- A RESULT carries the `tool` of its CALL.
- Text mode: English-ish text is a window of a word pool starting at a word; CJK text mixes common
  ideographs (U+4E00–U+9FFF) with 、 and 。 (U+3001, U+3002). Every generated string is free of
  quotes, backslashes and control characters, so JSON Lines are assembled without an encoder.
"""

from __future__ import annotations

import gzip
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
USER, ASSISTANT, CALL, RESULT = range(4)  # kind codes, the indices of KIND_NAMES
KIND_NAMES = ("USER", "ASSISTANT", "CALL", "RESULT")
TOOLS = ("read_file", "grep_files", "bash", "edit_file", "web_search", "list_files")
# Inclusive bounds by kind code: content length, and the gap (ms) before an event of that kind.
LENGTH_BOUNDS = np.array([[10, 300], [50, 800], [20, 200], [200, 3000]])
GAP_BOUNDS = np.array([[3000, 120_000], [200, 6000], [300, 8000], [5, 3000]])
FAST_RESULT_GAP = (1, 15)
P_TOOL_TURN = 0.9
P_FAST_TOOL = 0.3
P_CJK_SESSION = 0.5
START_SPREAD_MS = 2000  # per session: the window of session starts grows with the corpus
ALIGN_MS = 10
RETRY_DELAY_MS = (1, 20)

_VOCABULARY = (
    "the a to and of in for with file test run check fix error value config function return "
    "call result tool output line code build import module path update change read write list "
    "search found missing expected failed passed now then next first this that it we "
    "should will can need let me see look add remove use new old data session user agent"
).split()
_COMMON_CJK = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可"
    "她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三"
    "已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女"
    "问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由"
    "代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期"
)
_CJK_PUNCTUATION = "、。"
_ENGLISH_POOL_WORDS = 1 << 15
_CJK_POOL_CHARS = 1 << 16
_TEXT_CHUNK_ROWS = 1 << 14
_JSON_BATCH_ROWS = 1 << 16
_PROBABILITIES = ("p_result", "p_lost_call", "p_retry", "ts_align")
_COUNTS = {"sessions": 1, "turns": 1, "max_calls": 0, "groups": 0, "id_space": 0}


@dataclass
class _Events:
    """Every event the writers produced, session by session, each session in its own order."""

    kind: np.ndarray  # int8 kind code
    session: np.ndarray  # int64 real session index
    turn: np.ndarray  # int32, 1-based
    number: np.ndarray  # int64, 1-based position in the real session (the n of evt-n)
    call: np.ndarray  # int64 index of the call a CALL/RESULT belongs to, -1 elsewhere
    call_event: np.ndarray  # per call: index of its CALL event
    call_session: np.ndarray  # per call: real session index
    call_number: np.ndarray  # per call: 1-based counter within its session


@dataclass
class _Faults:
    """The fault draws, one per call or per event, whatever the probabilities."""

    lost: np.ndarray  # per event: a CALL whose write was lost
    retried: np.ndarray  # per event: written twice
    delay: np.ndarray  # per event: ms between a row and its retried copy
    aligned: np.ndarray  # per event: ts floored to ALIGN_MS


def _exclusive_cumsum(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts), np.int64)
    np.cumsum(counts[:-1], out=out[1:])
    return out


def _draw_turn_shapes(rng, n_turns: int, max_calls: int, p_result: float):
    """Calls per turn and, per call, whether its RESULT is written."""
    with_tools = rng.random(n_turns) < P_TOOL_TURN
    calls_per_turn = rng.integers(0, max_calls, n_turns, endpoint=True) * with_tools
    answered = rng.random(int(calls_per_turn.sum())) < p_result
    return calls_per_turn, answered


def _layout(calls_per_turn: np.ndarray, answered: np.ndarray, turns: int) -> _Events:
    """Lay turns out as USER, (CALL, [RESULT])*, ASSISTANT, session after session."""
    n_turns, n_calls = len(calls_per_turn), len(answered)
    call_turn = np.repeat(np.arange(n_turns), calls_per_turn)
    turn_size = 2 + calls_per_turn + np.bincount(call_turn[answered], minlength=n_turns)
    turn_start = _exclusive_cumsum(turn_size)
    call_offset = _exclusive_cumsum(1 + answered.astype(np.int64))
    first_call = _exclusive_cumsum(calls_per_turn)[call_turn]
    call_event = turn_start[call_turn] + 1 + call_offset - call_offset[first_call]
    result_event = call_event[answered] + 1
    kind = np.full(int(turn_size.sum()), ASSISTANT, np.int8)
    kind[turn_start], kind[call_event], kind[result_event] = USER, CALL, RESULT
    call = np.full(len(kind), -1, np.int64)
    call[call_event] = np.arange(n_calls)
    call[result_event] = np.flatnonzero(answered)
    turn_index = np.repeat(np.arange(n_turns), turn_size)
    session = turn_index // turns
    session_start = turn_start[::turns]
    call_session = call_turn // turns
    first_of_session = _exclusive_cumsum(np.bincount(call_session, minlength=len(session_start)))
    return _Events(
        kind=kind,
        session=session,
        turn=(turn_index % turns + 1).astype(np.int32),
        number=np.arange(1, len(kind) + 1) - session_start[session],
        call=call,
        call_event=call_event,
        call_session=call_session,
        call_number=np.arange(1, n_calls + 1) - first_of_session[call_session],
    )


def _draw_timestamps(rng, events: _Events, session_offset: np.ndarray) -> np.ndarray:
    """Epoch ms of every event: session start plus realistic gaps, fast tools 1–15 ms."""
    gap = rng.integers(GAP_BOUNDS[events.kind, 0], GAP_BOUNDS[events.kind, 1], endpoint=True)
    results = np.flatnonzero(events.kind == RESULT)
    fast = results[rng.random(len(results)) < P_FAST_TOOL]
    gap[fast] = rng.integers(*FAST_RESULT_GAP, len(fast), endpoint=True)
    first = np.flatnonzero(events.number == 1)
    gap[first] = 0
    ts = np.cumsum(gap)
    ts -= ts[first][events.session]
    ts += T0_MS + session_offset[events.session]
    return ts


def _draw_faults(rng, events: _Events, p_lost_call, p_retry, ts_align) -> _Faults:
    n = len(events.kind)
    lost = np.zeros(n, bool)
    lost[events.call_event[rng.random(len(events.call_event)) < p_lost_call]] = True
    return _Faults(
        lost=lost,
        retried=rng.random(n) < p_retry,
        delay=rng.integers(*RETRY_DELAY_MS, n, endpoint=True, dtype=np.int8),
        aligned=rng.random(n) < ts_align,
    )


def _file_order(ts: np.ndarray, faults: _Faults):
    """The source event and the `ts` of every file row, in file order.

    Rows are the time-order merge of the sessions (ties by session, then position: the layout
    order), minus the lost CALLs, each retried row followed by its copy.
    """
    order = np.argsort(ts, kind="stable")
    written = order[~faults.lost[order]]
    del order
    retried = faults.retried[written]
    rows = np.repeat(written, 1 + retried)
    is_copy = np.zeros(len(rows), bool)
    is_copy[(np.cumsum(1 + retried) - 1)[retried]] = True
    row_ts = ts[rows]
    aligned = faults.aligned[rows]
    row_ts[aligned] -= row_ts[aligned] % ALIGN_MS
    row_ts[is_copy] += faults.delay[rows[is_copy]]
    return rows, row_ts


def _numbered(prefix: str, values: np.ndarray, width: int = 0) -> pa.Array:
    """Strings `prefix` + value, zero-padded to `width` digits."""
    digits = pc.cast(pa.array(values), pa.string())
    if width:
        digits = pc.utf8_lpad(digits, width, "0")
    return pc.binary_join_element_wise(prefix, digits, "")


def _masked(indices: np.ndarray) -> pa.Array:
    """Take-indices where -1 means null."""
    return pa.array(indices, mask=indices < 0)


def _call_ids(rng, events: _Events, session_digits: pa.Array, id_space: int) -> pa.Array:
    """One id per call: `call_{i:06d}_{m}`, or drawn from the pool `call_0` … `call_{K-1}`."""
    if id_space:
        return _numbered("call_", rng.integers(0, id_space, len(events.call_event)))
    return pc.binary_join_element_wise(
        "call_",
        session_digits.take(pa.array(events.call_session)),
        "_",
        pc.cast(pa.array(events.call_number), pa.string()),
        "",
    )


@dataclass
class _Corpus:
    """The drawn corpus: its events, and the rows of the file in order."""

    events: _Events
    chars: np.ndarray  # per event: content length in code points
    cjk: np.ndarray  # per session: the content is CJK text
    tool: np.ndarray  # per call: index into TOOLS
    rows: np.ndarray  # per file row: its source event
    ts: np.ndarray  # per file row: epoch ms


def _draw_corpus(rng, sessions, turns, max_calls, p_result, p_lost_call, p_retry, ts_align):
    cjk = rng.random(sessions) < P_CJK_SESSION
    session_offset = rng.integers(0, sessions * START_SPREAD_MS, sessions)
    events = _layout(*_draw_turn_shapes(rng, sessions * turns, max_calls, p_result), turns)
    tool = rng.integers(0, len(TOOLS), len(events.call_event))
    bounds = LENGTH_BOUNDS[events.kind]
    chars = rng.integers(bounds[:, 0], bounds[:, 1], endpoint=True).astype(np.int32)
    del bounds
    ts = _draw_timestamps(rng, events, session_offset)
    rows, row_ts = _file_order(ts, _draw_faults(rng, events, p_lost_call, p_retry, ts_align))
    return _Corpus(events=events, chars=chars, cjk=cjk, tool=tool, rows=rows, ts=row_ts)


def _event_columns(corpus: _Corpus, call_ids: pa.Array) -> dict[str, pa.Array]:
    """seq, ts, kind, call_id, tool and event_id of every file row."""
    events, rows = corpus.events, corpus.rows
    call = events.call[rows]
    tool = np.append(corpus.tool, -1)[call]  # call -1 picks the appended -1: no tool
    return {
        "seq": pa.array(np.arange(1, len(rows) + 1)),
        "ts": pa.array(corpus.ts),
        "kind": pa.array(KIND_NAMES).take(pa.array(events.kind[rows])),
        "call_id": call_ids.take(_masked(call)),
        "tool": pa.array(TOOLS).take(_masked(tool)),
        "event_id": _numbered("evt-", events.number[rows]),
    }


def _session_keys(rng, session_names: pa.Array, groups: int) -> pa.Array:
    """The storage key of every real session: its own name, or one of `groups` shared keys."""
    if not groups:
        return session_names
    keys = _numbered("k", np.arange(groups), 4)
    return keys.take(pa.array(rng.integers(0, groups, len(session_names))))


def _english_pool(rng) -> tuple[bytes, np.ndarray]:
    """ASCII text of random vocabulary words, and the offset of every word."""
    words = np.array(_VOCABULARY)[rng.integers(0, len(_VOCABULARY), _ENGLISH_POOL_WORDS)]
    words = np.char.add(words, np.where(rng.random(len(words)) < 0.1, ". ", " "))
    return "".join(words.tolist()).encode("ascii"), _exclusive_cumsum(np.char.str_len(words))


def _cjk_pool(rng) -> bytes:
    """UTF-8 text of common ideographs and 、。, three bytes per character."""
    chars = np.array(list(_COMMON_CJK))[rng.integers(0, len(_COMMON_CJK), _CJK_POOL_CHARS)]
    punctuation = rng.random(len(chars)) < 1 / 12
    marks = np.array(list(_CJK_PUNCTUATION))
    chars[punctuation] = marks[rng.integers(0, len(marks), int(punctuation.sum()))]
    return "".join(chars.tolist()).encode("utf-8")


def _string_array(pool: np.ndarray, start: np.ndarray, size: np.ndarray) -> pa.Array:
    """Strings cut from the byte pool: bytes start[i] … start[i] + size[i] - 1."""
    offsets = np.zeros(len(start) + 1, np.int64)
    np.cumsum(size, out=offsets[1:])
    index = np.repeat(start - offsets[:-1], size) + np.arange(offsets[-1])
    return pa.StringArray.from_buffers(
        len(start), pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(pool[index])
    )


def _text_column(rng, corpus: _Corpus) -> pa.ChunkedArray:
    """Text of exactly `chars` code points per row; a retried copy repeats its original."""
    english, word_starts = _english_pool(rng)
    pool = np.frombuffer(english + _cjk_pool(rng), np.uint8)
    longest = int(LENGTH_BOUNDS.max())
    word_starts = word_starts[word_starts <= len(english) - longest]
    pick = rng.random(len(corpus.chars))  # one per event, so a copy gets its original's text
    cjk = corpus.cjk[corpus.events.session]
    cjk_start = len(english) + 3 * (pick * (_CJK_POOL_CHARS - longest + 1)).astype(np.int64)
    start = np.where(cjk, cjk_start, word_starts[(pick * len(word_starts)).astype(np.int64)])
    size = corpus.chars * np.where(cjk, 3, 1)
    chunks = []
    for first in range(0, len(corpus.rows), _TEXT_CHUNK_ROWS):
        part = corpus.rows[first : first + _TEXT_CHUNK_ROWS]
        chunks.append(_string_array(pool, start[part], size[part]))
    return pa.chunked_array(chunks, pa.string())


def _content_columns(rng, corpus: _Corpus, text: bool) -> dict[str, pa.Array]:
    if text:
        return {"text": _text_column(rng, corpus)}
    rows = corpus.rows
    return {
        "chars": pa.array(corpus.chars[rows]),
        "cjk": pa.array(corpus.cjk[corpus.events.session[rows]]),
    }


def _check_arguments(arguments: dict) -> None:
    for name, lowest in _COUNTS.items():
        value = arguments[name]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lowest:
            raise ValueError(f"{name} must be an integer >= {lowest}, got {value!r}")
    for name in _PROBABILITIES:
        value = arguments[name]
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")


def generate_table(
    *,
    sessions: int = 200,
    turns: int = 20,
    max_calls: int = 4,
    p_result: float = 1.0,
    p_lost_call: float = 0.0,
    p_retry: float = 0.0,
    ts_align: float = 0.0,
    groups: int = 0,
    id_space: int = 0,
    text: bool = False,
    seed: int = 1,
) -> pa.Table:
    """The corpus as canonical rows in file order (see the module docstring)."""
    _check_arguments(locals())
    rng = np.random.default_rng(seed)
    corpus = _draw_corpus(
        rng, sessions, turns, max_calls, p_result, p_lost_call, p_retry, ts_align
    )
    digits = pc.utf8_lpad(pc.cast(pa.array(np.arange(sessions)), pa.string()), 6, "0")
    names = pc.binary_join_element_wise("s", digits, "")
    event_columns = _event_columns(corpus, _call_ids(rng, corpus.events, digits, id_space))
    session_row = pa.array(corpus.events.session[corpus.rows])
    columns = {"session_id": _session_keys(rng, names, groups).take(session_row)}
    columns.update(event_columns)
    columns.update(_content_columns(rng, corpus, text))
    if groups:
        columns["user_id"] = names.take(session_row)
        columns["turn"] = pa.array(corpus.events.turn[corpus.rows])
    return pa.table(columns)


def _json_lines(batch: pa.RecordBatch) -> pa.Array:
    """One compact JSON object per row, "\\n"-terminated, null fields left out."""
    fields = []
    for name, column in zip(batch.schema.names, batch.columns):
        if pa.types.is_string(column.type):
            value = pc.binary_join_element_wise('"', column, '"', "")
        else:
            value = pc.cast(column, pa.string())
        fields.append(pc.binary_join_element_wise(f'"{name}":', value, ""))
    body = pc.binary_join_element_wise(*fields, ",", null_handling="skip")
    return pc.binary_join_element_wise("{", body, "}\n", "")


def _string_bytes(strings: pa.Array) -> pa.Buffer:
    """The concatenated UTF-8 bytes of a string array."""
    offsets = np.frombuffer(strings.buffers()[1], np.int32)
    first, last = offsets[strings.offset], offsets[strings.offset + len(strings)]
    return strings.buffers()[2].slice(first, last - first)


def _write_jsonl_to(table: pa.Table, stream) -> None:
    for batch in table.to_batches(max_chunksize=_JSON_BATCH_ROWS):
        stream.write(_string_bytes(_json_lines(batch)))


def _write_jsonl(table: pa.Table, path: Path) -> None:
    with open(path, "wb") as stream:
        _write_jsonl_to(table, stream)


def _write_jsonl_gz(table: pa.Table, path: Path) -> None:
    # No file name and mtime 0 in the gzip header: the bytes depend on the rows alone.
    with open(path, "wb") as raw, gzip.GzipFile("", "wb", 6, raw, mtime=0) as stream:
        _write_jsonl_to(table, stream)


def _write_frames(table: pa.Table, path: Path) -> None:
    """Each row's JSON object (no newline) in one frame (explorer.formats.frames)."""
    from explorer.formats.frames import encode_all
    with open(path, "wb") as stream:
        for batch in table.to_batches(max_chunksize=_JSON_BATCH_ROWS):
            lines = bytes(_string_bytes(_json_lines(batch))).split(b"\n")[:-1]
            stream.write(encode_all(lines))


def json_records(table: pa.Table) -> list[bytes]:
    """Each row as its compact JSON object (what a JSON Lines line holds, no newline)."""
    out: list[bytes] = []
    for batch in table.to_batches(max_chunksize=_JSON_BATCH_ROWS):
        out += bytes(_string_bytes(_json_lines(batch))).split(b"\n")[:-1]
    return out


def _write_csv(table: pa.Table, path: Path) -> None:
    pa_csv.write_csv(table, path)


def _write_parquet(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression="zstd")


_WRITERS = {
    ".parquet": _write_parquet,
    ".jsonl": _write_jsonl,
    ".ndjson": _write_jsonl,
    ".jsonl.gz": _write_jsonl_gz,
    ".ndjson.gz": _write_jsonl_gz,
    ".csv": _write_csv,
    ".tsframes": _write_frames,
}


def _writer_for(path: Path):
    name = path.name.lower()
    for extension, writer in _WRITERS.items():
        if name.endswith(extension):
            return writer
    extension = "".join(path.suffixes) or "(none)"
    raise ValueError(
        f"unsupported output extension {extension!r} for {path.name!r}: "
        f"use one of {', '.join(_WRITERS)}"
    )


def write_table(table: pa.Table, out: str | Path) -> None:
    """Write canonical rows to `out` in the format its extension names."""
    path = Path(out)
    _writer_for(path)(table, path)


def generate(out: str | Path, framed: bool = False, **options) -> int:
    """Write the corpus of `generate_table(**options)` to `out`; return the number of rows.

    The format follows the extension: .parquet, .jsonl/.ndjson (optionally .gz), .csv.
    The command line is `turnscope generate` (explorer/cli.py).
    """
    path = Path(out)
    write = _write_frames if framed else _writer_for(path)  # a bad extension fails first
    table = generate_table(**options)
    write(table, path)
    return table.num_rows
