"""A transcript you can read (issue 17): tree rows in words (tool and the start of its
arguments, the start of an output and its error mark), the detail with JSON indented, line
breaks for escaped newlines and no ANSI codes; plain text throughout. Checked on a real
Claude Code session (the corpus), the expected figures read from the raw file here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.ingest.imports import import_paths
from explorer.model import Order
from explorer.session.readable import ERROR_MARK, event_label, one_line, pretty, strip_ansi
from widgets.session_panel import SessionPanel
from widgets.turn_tree_cells import EVENT

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
MAIN = CORPUS / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def blocks(path: Path, kind: str):
    """The content blocks of type ``kind`` of the file's main (not sidechain) messages."""
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        if record.get("isSidechain") or not isinstance(message, dict):
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == kind:
                yield block


@pytest.fixture(scope="module")
def panel(qapp, tmp_path_factory):
    if not MAIN.exists():
        pytest.skip("the shared corpus is not here")
    from explorer.store.db import Store
    store = Store()
    import_paths(store, [MAIN])
    panel = SessionPanel()
    panel.show_session(store, SESSION, Order.SEQ)
    panel.expand_all()
    yield panel
    panel.tree.viewport().removeEventFilter(panel)
    panel.clear()
    store.close()


def label(panel, row: int) -> str:
    return panel.model.index_of_row(row).siblingAtColumn(EVENT).data()


def detail(panel, row: int) -> str:
    panel.select_row(row)
    return panel.detail.toPlainText()


def test_call_rows_say_the_tool_and_the_start_of_its_arguments(panel):
    frame = panel.data.frame
    uses = {b["id"]: b for b in blocks(MAIN, "tool_use")}
    calls = [r for r in range(frame.height) if frame["kind"][r] == "CALL"]
    assert len(calls) == len(uses)
    for row in calls:
        use = uses[frame["call_id"][row]]
        text = label(panel, row)
        assert text.startswith(f"CALL {use['name']} — "), text
        assert use["id"] not in text                       # the id is in the detail
        first = next(iter(use["input"]), None)
        if first is not None:
            assert text.split(" — ", 1)[1].startswith(f"{first}: "), text


def test_result_rows_carry_the_error_mark_of_the_file(panel):
    frame = panel.data.frame
    errors = {b["tool_use_id"] for b in blocks(MAIN, "tool_result") if b.get("is_error")}
    assert len(errors) == 11   # SOURCES.md
    results = [r for r in range(frame.height) if frame["kind"][r] == "RESULT"]
    marked = {frame["call_id"][r] for r in results if ERROR_MARK in label(panel, r)}
    assert marked == errors
    row = next(r for r in results if frame["call_id"][r] in errors)
    assert "✗ the tool reported an error" in detail(panel, row)


def test_the_detail_lays_out_arguments_and_strips_ansi_codes(panel):
    frame = panel.data.frame
    uses = {b["id"]: b for b in blocks(MAIN, "tool_use")}
    # A call whose arguments hold a string of several lines: each on a line of its own.
    call_id, key, value = next((i, k, v) for i, b in uses.items() for k, v in b["input"].items()
                               if isinstance(v, str) and v.count("\n") >= 2
                               and v.isascii() and "\t" not in v and "\x1b" not in v)
    row = next(r for r in range(frame.height)
               if frame["kind"][r] == "CALL" and frame["call_id"][r] == call_id)
    lines = detail(panel, row).splitlines()
    at = lines.index(f"  {json.dumps(key)}: ")
    parts = value.split("\n")
    shown = lines[at + 1:at + 1 + len(parts)]
    shown[-1] = shown[-1].removesuffix(",")   # the comma after the member, when one follows
    assert shown == [f"    | {v}" for v in parts]
    assert "\\n" not in "\n".join(lines[lines.index("arguments:"):lines.index("raw record:")])
    # The one event with an ANSI colour code in the file: its detail shows none.
    texts = [(r, panel.model.event(r).get("text") or "") for r in range(frame.height)]
    coloured = [r for r, t in texts if "\x1b[" in t]
    assert coloured
    for row in coloured:
        shown = detail(panel, row)
        assert "\x1b" not in shown.split("raw record:")[0]
        assert "\\x1b" not in shown.split("raw record:")[0] and "␛" not in shown


def test_readable_text_rules():
    assert strip_ansi("\x1b[1;31merror\x1b[0m: \x1b]0;title\x07x") == "error: x"
    assert pretty('{"a": "one\\ntwo", "b": [1, {"c": null}]}').splitlines() == [
        "{", '  "a": ', "    | one", "    | two,", '  "b": [', "    1,", "    {",
        '      "c": null', "    }", "  ]", "}"]
    assert pretty("not json {") == "not json {"
    assert one_line('{"command": "ls  -la\\n/tmp", "n": 3}') == "command: ls -la /tmp · n: 3"
    assert event_label("RESULT", None, None, True, "boom") == f"RESULT {ERROR_MARK} — boom"
    assert event_label("OTHER", None, "thinking", None, "") == "OTHER (thinking)"
    assert event_label("SUMMARY", None, None, None, "so far").startswith("SUMMARY (compaction")


def test_the_search_pattern_matches_the_words_literally_case_folded():
    import duckdb

    from explorer.session.corpus_search import literal_pattern, snippet
    con = duckdb.connect()
    for words, text, found in (("a.b", "xA.Bx", True), ("a.b", "axb", False),
                               ("x\\Ey", "Q x\\Ey", True), ("(", "f(x)", True),
                               ("日本", "語日本", True), ("MIX test", "run mix  test", False)):
        got = con.execute("SELECT regexp_matches($t, $p)",
                          {"t": text, "p": literal_pattern(words)}).fetchone()[0]
        assert got is found, (words, text)
    assert snippet("x" * 100 + " Needle " + "y" * 100, "needle", 5) == "…xxxx Needle yyyy…"
