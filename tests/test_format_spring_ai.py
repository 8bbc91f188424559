"""Spring AI session JDBC dumps (LOG-FORMATS.md §10, SPRING-AI-SESSION.md).

No real dump of these tables exists (the corpus has none: LOG-FORMATS.md §10 says so), so
every sample here is built from the documented schema (schema-postgresql.sql columns, the
``ToolCall`` / ``ToolResponse`` JSON of ``message_data``, booleans as PostgreSQL, MySQL and
JSON exports write them) and written as the three dump shapes. Expected values are derived
from the sample rows with a few lines of independent code, not from the reader.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.formats import detect, spring_ai, spring_ai_owners
from explorer.ingest.imports import import_paths
from tests.helpers import corpus_and_demo, detected_as, stored_kinds

COLUMNS = ["seq", "id", "session_id", "timestamp", "message_type", "message_content",
           "message_data", "synthetic", "archived", "branch", "metadata"]


def _calls(*pairs):
    return json.dumps([{"id": i, "type": "function", "name": n, "arguments": json.dumps({"q": i})}
                       for i, n in pairs])


def _responses(*pairs):
    return json.dumps([{"id": i, "name": n, "responseData": json.dumps(f"out {i}")}
                       for i, n in pairs])


def sample_rows() -> list[dict]:
    """Two sessions. s1 was compacted once: its first turn is archived history, then the
    summary pair (synthetic, stamped at compaction time), then the kept window re-inserted
    with new seq values. s2 has two parallel calls in one row, answered in one TOOL row, plus
    a call never answered (dangling) and a response to an unknown call (orphan); a sub-agent
    branch row; rows out of seq order in the file."""
    meta = json.dumps({"synthetic": True, "compactionSource": "RecursiveSummarization"})
    t = "2026-03-01 10:00:{:02d}.123456"
    return [
        dict(seq=1, id="e1", session_id="s1", timestamp=t.format(1), message_type="SYSTEM",
             message_content="be brief", message_data=None, synthetic=False, archived=True),
        dict(seq=2, id="e2", session_id="s1", timestamp=t.format(2), message_type="USER",
             message_content="weather?", message_data=None, synthetic=False, archived=True),
        dict(seq=3, id="e3", session_id="s1", timestamp=t.format(3), message_type="ASSISTANT",
             message_content="", message_data=_calls(("c1", "weather")), synthetic=False,
             archived=True),
        dict(seq=4, id="e4", session_id="s1", timestamp=t.format(4), message_type="TOOL",
             message_content="", message_data=_responses(("c1", "weather")), synthetic=False,
             archived=True),
        dict(seq=5, id="e5", session_id="s1", timestamp=t.format(5), message_type="ASSISTANT",
             message_content="sunny", message_data="[]", synthetic=False, archived=True),
        dict(seq=9, id="e9", session_id="s1", timestamp=t.format(30), message_type="USER",
             message_content="Summarize the conversation so far", message_data=None,
             synthetic=True, archived=False, metadata=meta),
        dict(seq=10, id="e10", session_id="s1", timestamp=t.format(30), message_type="ASSISTANT",
             message_content="The user asked about weather; it is sunny.", message_data=None,
             synthetic=True, archived=False, metadata=meta),
        dict(seq=11, id="e6", session_id="s1", timestamp=t.format(6), message_type="USER",
             message_content="and tomorrow?", message_data=None, synthetic=False,
             archived=False),
        dict(seq=12, id="e7", session_id="s1", timestamp=t.format(7), message_type="ASSISTANT",
             message_content="rain", message_data=None, synthetic=False, archived=False),
        dict(seq=14, id="f2", session_id="s2", timestamp=t.format(11), message_type="ASSISTANT",
             message_content="checking both",
             message_data=_calls(("p1", "search"), ("p2", "fetch"), ("p3", "final_result")),
             synthetic=False, archived=False),
        dict(seq=13, id="f1", session_id="s2", timestamp=t.format(10), message_type="USER",
             message_content="compare", message_data=None, synthetic=False, archived=False),
        dict(seq=15, id="f3", session_id="s2", timestamp=t.format(12), message_type="TOOL",
             message_content="", message_data=_responses(("p2", "fetch"), ("p1", "search"),
                                                         ("zz", "search")),
             synthetic=False, archived=False),
        dict(seq=16, id="f4", session_id="s2", timestamp=t.format(13), message_type="ASSISTANT",
             message_content="sub-agent says hi", message_data=None, synthetic=False,
             archived=False, branch="main.researcher"),
    ]


def write_csv(path: Path, rows, booleans=("true", "false"), upper=False, delimiter=","):
    yes, no = booleans
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter=delimiter)
        w.writerow([c.upper() if upper else c for c in COLUMNS])
        for r in rows:
            w.writerow(["" if r.get(c) is None else (yes if r[c] is True else no if r[c] is False
                                                      else r[c]) for c in COLUMNS])
    return path


def write_json(path: Path, rows):
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def expected(rows) -> dict:
    """Events by kind, and per session dangling calls / orphan results, from the rows."""
    kinds = Counter()
    calls, results = {}, {}
    for r in rows:
        data = json.loads(r["message_data"]) if r.get("message_data") else []
        t = r["message_type"]
        if t in ("USER", "SYSTEM"):
            kinds[t] += 1
        elif t == "ASSISTANT":
            if r["message_content"] or not data:
                kinds["SUMMARY" if r["synthetic"] else "ASSISTANT"] += 1
            kinds["CALL"] += len(data)
            calls.setdefault(r["session_id"], []).extend(d["id"] for d in data)
        else:
            kinds["RESULT"] += len(data)
            results.setdefault(r["session_id"], []).extend(d["id"] for d in data)
    sessions = {r["session_id"] for r in rows}
    dangling = {s: len(set(calls.get(s, [])) - set(results.get(s, []))) for s in sessions}
    orphan = {s: len(set(results.get(s, [])) - set(calls.get(s, []))) for s in sessions}
    return {"kinds": dict(kinds), "dangling": dangling, "orphan": orphan}


@pytest.mark.parametrize("shape", ["csv", "csv-tf", "csv-10-upper-tab", "json", "jsonl",
                                   "jsonl-gz"])
def test_dump_shapes_import_with_counts_from_the_rows(store, tmp_path, shape):
    rows = sample_rows()
    if shape == "csv":
        path = write_csv(tmp_path / "events.csv", rows)
    elif shape == "csv-tf":
        path = write_csv(tmp_path / "events.csv", rows, ("t", "f"))
    elif shape == "csv-10-upper-tab":
        path = write_csv(tmp_path / "events.tsv", rows, ("1", "0"), upper=True, delimiter="\t")
    elif shape == "json":
        path = write_json(tmp_path / "events.json", rows)
    elif shape == "jsonl":
        path = write_jsonl(tmp_path / "events.jsonl", rows)
    else:
        path = tmp_path / "events.jsonl.gz"
        path.write_bytes(gzip.compress(write_jsonl(tmp_path / "x", rows).read_bytes()))
    assert detect(path).NAME == "spring-ai-session"
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    want = expected(rows)
    assert stored_kinds(store) == want["kinds"]
    counts = audits.session_counts(store)
    got = {r["session_id"]: r for r in counts.iter_rows(named=True)}
    assert {s: got[s]["dangling_calls"] for s in got} == want["dangling"]
    assert {s: got[s]["orphan_results"] for s in got} == want["orphan"]


def test_row_fields_ids_subs_and_flags(store, tmp_path):
    """event_id = id#index and sub = position for message_data elements, message_id = id,
    archived and synthetic kept, branch kept, seq = the table's identity."""
    load_csv = write_csv(tmp_path / "events.csv", sample_rows())
    import_paths(store, [load_csv])
    got = store.con.execute(
        "SELECT e.seq, e.sub, CAST(e.kind AS VARCHAR), e.call_id, e.event_id, e.message_id, "
        "d.archived, d.synthetic, d.branch FROM events e JOIN event_details d USING (eid) "
        "WHERE e.session_id = 's2' ORDER BY e.seq, e.sub").fetchall()
    assert got[:4] == [
        (13, 0, "USER", None, "f1", "f1", False, False, None),
        (14, 0, "ASSISTANT", None, "f2", "f2", False, False, None),
        (14, 1, "CALL", "p1", "f2#0", "f2", False, False, None),
        (14, 2, "CALL", "p2", "f2#1", "f2", False, False, None)]
    assert got[5][:5] == (15, 0, "RESULT", "p2", "f3#0")
    assert got[-1][2] == "ASSISTANT" and got[-1][8] == "main.researcher"
    summary = store.con.execute(
        "SELECT seq, d.synthetic, d.archived FROM events e JOIN event_details d USING (eid) "
        "WHERE kind = 'SUMMARY'").fetchall()
    assert summary == [(10, True, False)]
    shadow = store.con.execute(
        "SELECT CAST(kind AS VARCHAR), d.synthetic FROM events e JOIN event_details d "
        "USING (eid) WHERE seq = 9").fetchall()
    assert shadow == [("USER", True)]
    # The five archived rows (e1..e5) each give one event: SYSTEM, USER, one CALL, one
    # RESULT, and an ASSISTANT whose message_data is the empty array.
    archived = store.con.execute(
        "SELECT list(e.event_id ORDER BY seq) FROM events e JOIN event_details d USING (eid) "
        "WHERE d.archived").fetchone()[0]
    assert archived == ["e1", "e2", "e3#0", "e4#0", "e5"]


def test_recorded_view_is_the_rows_not_archived(store, tmp_path):
    """STRATEGIES.md "Recorded": with archived rows, the view is the non-archived events,
    in seq order: the summary pair, then the kept window."""
    from explorer.compaction import view
    from explorer.session.data import load_session

    import_paths(store, [write_jsonl(tmp_path / "events.jsonl", sample_rows())])
    data = load_session(store, "s1")
    items, metrics = view(data.log, "recorded", 100_000)
    kept = [data.frame["event_id"][i.index] for i in items]
    want = [r["id"] for r in sorted(sample_rows(), key=lambda r: r["seq"])
            if r["session_id"] == "s1" and not r["archived"]]
    assert kept == want == ["e9", "e10", "e6", "e7"]
    assert not metrics["starts_inside_turn"]


def test_summary_timestamp_inversion_is_counted_in_seq_order(store, tmp_path):
    """The summary carries the compaction time but sits before the kept window."""
    rows = sample_rows()
    import_paths(store, [write_csv(tmp_path / "events.csv", rows)])
    got = {r["session_id"]: r["clock_regressions"]
           for r in audits.session_counts(store).iter_rows(named=True)}
    want = {}
    for s in {r["session_id"] for r in rows}:
        stamps = [r["timestamp"] for r in sorted(rows, key=lambda r: r["seq"])
                  if r["session_id"] == s]
        want[s] = sum(b < a for a, b in zip(stamps, stamps[1:]))
    assert got == want and want["s1"] == 1


def test_owners_from_an_ai_session_dump_in_the_same_folder(store, tmp_path):
    """AI_SESSION rows (PostgreSQL CSV export, upper-case header) give user_id; a session
    without an owner row gets none. The dump alone is recognised but not imported."""
    owners = tmp_path / "ai_session.csv"
    owners.write_text("ID,USER_ID,CREATED_AT,EXPIRES_AT,METADATA,EVENT_VERSION\n"
                      "s1,alice,2026-03-01 09:59:00,,{},3\n", encoding="utf-8")
    events = write_csv(tmp_path / "ai_session_event.csv", sample_rows())
    assert detect(owners).NAME == "spring-ai-session-owners"
    report = import_paths(store, [events, owners])
    assert report.rejected == 0
    assert len(report.errors) == 1 and isinstance(report.errors[0], spring_ai_owners.CompanionFile)
    assert "1 sessions" in report.errors[0].reason
    got = dict(store.con.execute(
        "SELECT session_id, list(DISTINCT user_id) FROM events GROUP BY 1").fetchall())
    assert got == {"s1": ["alice"], "s2": [None]}


def test_json_export_of_both_tables(store, tmp_path):
    """A database tool's JSON export keyed by table, holding AI_SESSION and AI_SESSION_EVENT."""
    doc = {"AI_SESSION": [{"id": "s2", "user_id": "bob", "created_at": "2026-03-01 10:00:00",
                           "expires_at": None, "metadata": None, "event_version": 0}],
           "AI_SESSION_EVENT": sample_rows()}
    path = write_json(tmp_path / "export.json", doc)
    assert detect(path).NAME == "spring-ai-session"
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    got = dict(store.con.execute(
        "SELECT session_id, list(DISTINCT user_id) FROM events GROUP BY 1").fetchall())
    assert got == {"s1": [None], "s2": ["bob"]}


def test_bad_rows_are_rejected_with_their_reason(store, tmp_path):
    good = dict(seq=1, id="a", session_id="s", timestamp="2026-03-01 10:00:00",
                message_type="USER", message_content="hi", synthetic=False, archived=False)
    rows = [good,
            {**good, "seq": 2, "id": "b", "message_type": "COMPACTION"},
            {**good, "seq": 3, "id": "c", "archived": "maybe"},
            {**good, "seq": 4, "id": "d", "message_type": "TOOL", "message_data": "[{"},
            {**good, "seq": 5, "id": "e", "message_type": "ASSISTANT", "message_data": '{"id":1}'},
            {**good, "seq": 6, "id": None}]
    report = import_paths(store, [write_jsonl(tmp_path / "bad.jsonl", rows)])
    assert report.files[0].rejected == 5
    reasons = [r[0] for r in store.con.execute("SELECT reason FROM rejected ORDER BY line").fetchall()]
    assert reasons[0].startswith("unknown message_type 'COMPACTION'")
    assert reasons[1].startswith("archived is not a boolean")
    assert reasons[2].startswith("message_data is not valid JSON")
    assert reasons[3].startswith("message_data is not an array")
    assert reasons[4] == "missing id"


def test_the_same_event_in_two_exports_is_imported_once(store, tmp_path):
    """id is the table's primary key: a second export of the session repeats its events."""
    rows = sample_rows()
    first = write_csv(tmp_path / "events1.csv", rows)
    later = [{**r, "seq": r["seq"] + 100} for r in rows]  # re-inserted with new seq values
    second = write_jsonl(tmp_path / "events2.jsonl", later)
    report = import_paths(store, [first, second])
    events = sum(expected(rows)["kinds"].values())
    assert report.files[0].events == events
    assert report.files[1].events == 0 and report.files[1].duplicate_events == events


def test_sniffers_reject_other_files_and_canonical_readers_do_not_take_dumps(tmp_path):
    """No corpus file, no demo file and no canonical file is read as a Spring AI dump; the
    dumps are not read by the canonical CSV / JSON Lines readers (detect tries ours first)."""
    others = corpus_and_demo()
    canonical = [
        write_jsonl(tmp_path / "canon.jsonl", [{"session_id": "s", "seq": 1, "kind": "USER",
                                                "user_id": "u", "event_id": "id"}]),
        tmp_path / "canon.csv",
        write_json(tmp_path / "rows.json", [{"session_id": "s", "id": 1, "content": "x"}]),
        write_jsonl(tmp_path / "users.jsonl", [{"id": 1, "user_id": "u"}])]
    (tmp_path / "canon.csv").write_text("session_id,seq,kind,user_id,event_id,id,message_type,"
                                        "message_content\ns,1,USER,u,e,i,USER,hi\n")
    assert len(others) > 20
    assert detected_as({spring_ai.NAME, spring_ai_owners.NAME}, others + canonical) == []
    dumps = [write_csv(tmp_path / "e.csv", sample_rows()),
             write_jsonl(tmp_path / "e.jsonl", sample_rows())]
    assert [detect(p).NAME for p in dumps] == [spring_ai.NAME, spring_ai.NAME]


def test_long_first_row_is_still_recognised(store, tmp_path):
    """A first row longer than the 64 KB sniffed is told by the keys seen before the cut."""
    rows = sample_rows()
    rows[0]["message_content"] = "x" * 100_000
    path = write_json(tmp_path / "big.json", rows)
    assert detect(path).NAME == spring_ai.NAME
    assert import_paths(store, [path]).rejected == 0
