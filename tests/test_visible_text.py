"""What the user reads is honest (issue 14 §9, §10): ids and paths with control, bidirectional
or zero-width characters are shown as visible escapes, long ids elided with the whole value in
a tooltip; a command-line message stays one line whatever a file name holds.

Every case makes its own file; the window cases open the real window on it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PySide6.QtGui import Qt

from explorer.cli.main import main
from explorer.formats import LogFileError
from explorer.store.durability import unfinished_message
from explorer.text_escape import ELLIPSIS, HEAD, TAIL, elided, visible
from tests.test_plain_text import imported_window, shown
from widgets.plain_text import tooltip

WAIT = 120_000
#: Three ids that look alike unless their invisible characters are shown.
LOOKALIKES = ("abc", "a\u200bbc", "\u202ecba")


def write_jsonl(path: Path, sessions: list[str]) -> Path:
    rows = []
    for s in sessions:
        rows += [{"session_id": s, "seq": 1, "kind": "USER", "text": "hi"},
                 {"session_id": s, "seq": 2, "kind": "CALL", "tool": s, "call_id": s,
                  "text": "run"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def open_window(qtbot, path: Path):
    return imported_window(qtbot, path, WAIT)


def show(qtbot, window, session: str) -> None:
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT,
                          check_params_cb=lambda s: s == session):
        assert window.select_session(session)
    qtbot.waitUntil(lambda: not window.jobs.is_busy(), timeout=WAIT)


# -- the core helper ----------------------------------------------------------------------

def test_lookalike_ids_are_told_apart():
    assert [visible(s) for s in LOOKALIKES] == ["abc", "a\\u200bbc", "\\u202ecba"]


@pytest.mark.parametrize("char", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
                                  "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c",
                                  "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u2028",
                                  "\x00", "\x1b", "\x7f", "\x85", "\ud800"])
def test_every_invisible_character_is_escaped(char):
    text = visible(f"a{char}b")
    code = ord(char)
    assert text == (f"a\\x{code:02x}b" if code < 0x100 else f"a\\u{code:04x}b")
    assert text.isprintable() and text.encode("ascii")


def test_newline_tab_and_return_are_escaped_and_the_rest_is_kept():
    assert visible("a\nb\tc\rd") == "a\\nb\\tc\\rd"
    assert visible("ログ é \\ C:\\dir <b>") == "ログ é \\ C:\\dir <b>"  # backslashes as they are


def test_long_values_are_elided_by_one_rule():
    value = "h" * HEAD + "m" * 1000 + "t" * TAIL
    assert elided(value) == "h" * HEAD + ELLIPSIS + "t" * TAIL
    assert elided("x" * (HEAD + TAIL + 1)) == "x" * (HEAD + TAIL + 1)  # short enough: whole
    # cut first, escaped after: what is shown stays short whatever the value holds
    assert elided("\u202e" * 10_000) == "\\u202e" * HEAD + ELLIPSIS + "\\u202e" * TAIL


def test_a_file_error_and_an_unfinished_import_name_the_file_on_one_line():
    name = "/tmp/x\nturnscope audit: error: forged\u202e.jsonl"
    assert "\n" not in str(LogFileError(name, "binary data"))
    assert str(LogFileError(name, "binary data")).startswith("/tmp/x\\nturnscope")
    assert unfinished_message(name).startswith("/tmp/x\\nturnscope audit: error: forged\\u202e")


# -- the command line ----------------------------------------------------------------------

def test_a_newline_in_a_file_name_does_not_split_the_warning_line(capsys, tmp_path):
    path = tmp_path / "bad\nturnscope audit: error: forged.jsonl"
    path.write_text(json.dumps({"session_id": "s", "seq": 1, "kind": "USER", "text": "hi"})
                    + "\nnot json\n", encoding="utf-8")
    status = main(["audit", str(path)])
    _, err = capsys.readouterr()
    assert status == 0
    lines = err.splitlines()
    assert not any(line.startswith("turnscope audit: error") for line in lines), err
    warned = [line for line in lines if ":2: " in line]
    assert len(warned) == 1 and "bad\\nturnscope audit: error: forged.jsonl:2: " in warned[0]


def test_findings_on_stdout_show_a_bidi_id_escaped(capsys, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"session_id": "\u202ecba", "seq": 1, "kind": "RESULT",
                                "tool": "t", "call_id": "c\u200b", "text": "x"}) + "\n",
                    encoding="utf-8")
    assert main(["audit", str(path), "--findings"]) == 0
    out, _ = capsys.readouterr()
    assert "\u202e" not in out and "\\u202ecba" in out and "c\\u200b" in out


# -- the window ----------------------------------------------------------------------------

def test_lookalike_ids_look_different_in_the_list_and_the_titles(qtbot, tmp_path):
    window = open_window(qtbot, write_jsonl(tmp_path / "look.jsonl", list(LOOKALIKES)))
    model = window.model
    texts = sorted(model.index(r, 0).data() for r in range(model.rowCount()))
    assert texts == sorted(visible(s) for s in LOOKALIKES)
    assert len(set(texts)) == 3
    raw = sorted(model.index(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(model.rowCount()))
    assert raw == sorted(LOOKALIKES)  # the value itself is kept
    show(qtbot, window, "\u202ecba")
    for label in (window.session_panel.title, window.workspace.cost_plot.title,
                  window.workspace.preview.title):
        assert "\u202e" not in label.text() and label.text().startswith("\\u202ecba: ")
    assert "\u202e" not in window.session_panel.title.toolTip()
    assert window.windowTitle() == "Turnscope"
    tree = window.session_panel.model
    tree.fetch_all()
    call = tree.index(1, 0, tree.index(0, 0))
    assert call.data().startswith("CALL \\u202ecba — ")   # its tool, then its arguments
    window.close()


def test_a_10_mb_session_id_is_elided_with_the_whole_in_a_tooltip(qtbot, tmp_path, capsys):
    session = "\u202e" + "x" * (10 * 1024 * 1024) + "end"
    path = write_jsonl(tmp_path / "long.jsonl", [session, "short"])
    started = time.perf_counter()
    window = open_window(qtbot, path)
    listed = time.perf_counter()
    show(qtbot, window, session)
    shown_at = time.perf_counter()
    model = window.model
    row = next(r for r in range(model.rowCount())
               if model.index(r, 0).data(Qt.ItemDataRole.UserRole) == session)
    text = model.index(row, 0).data()
    assert text == elided(session) and len(text) < 100
    tip = model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert shown(tip) == visible(session)
    title = window.session_panel.title
    assert len(title.text()) < 300 and title.text().startswith("\\u202exxx")
    assert shown(title.toolTip()).startswith(visible(session) + ": 2 events")
    assert len(window.windowTitle()) < 100
    with capsys.disabled():
        print(f"\n10 MB session id: list shown in {listed - started:.1f} s, "
              f"session shown {shown_at - listed:.1f} s later")
    window.close()


def test_tooltip_of_an_escaped_id_shows_the_escapes(qapp):
    tip = tooltip(visible("<b>\u202e</b>"))
    assert shown(tip) == "<b>\\u202e</b>"


# -- messages that say what is wrong (issue 14 §11) -----------------------------------------

def audit_err(capsys, path: Path) -> tuple[int, str]:
    status = main(["audit", str(path)])
    return status, capsys.readouterr().err


def test_an_integer_past_64_bits_is_out_of_range_not_a_non_integer(capsys, tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text('{"session_id": "s", "seq": 99999999999999999999, "kind": "USER"}\n'
                    '{"session_id": "s", "seq": 2, "kind": "USER", "tokens": 2.5}\n'
                    '{"session_id": "s", "seq": 3, "kind": "USER", "tokens": 1e30}\n',
                    encoding="utf-8")
    status, err = audit_err(capsys, path)
    assert status == 0
    assert (f"{path}:1: seq is an integer out of range (−2^63 … 2^63−1): 99999999999999999999"
            in err)
    assert f"{path}:2: tokens is not an integer: 2.5" in err  # a fraction still says so
    assert f"{path}:3: tokens is an integer out of range (−2^63 … 2^63−1)" in err


def test_a_lone_surrogate_is_named_with_its_place(capsys, tmp_path):
    path = tmp_path / "surrogate.jsonl"
    path.write_text('{"session_id": "\\ud800", "seq": 1, "kind": "USER"}\n'
                    '{"session_id": "\\ud83d\\ude00", "seq": 2, "kind": "USER"}\n',
                    encoding="utf-8")
    status, err = audit_err(capsys, path)
    assert status == 0
    assert (f"{path}:1: invalid JSON: a lone surrogate \\ud800 (half of a UTF-16 pair, no "
            "character): line 1 column 17 (char 16)") in err
    assert ":2:" not in err  # a whole pair is a character


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_input_is_named_as_such(capsys, tmp_path, encoding):
    path = tmp_path / "wide.jsonl"
    text = "".join(json.dumps({"session_id": "s", "seq": n, "kind": "USER"}) + "\n"
                   for n in range(3))
    path.write_bytes(text.encode(encoding))  # "utf-16" writes the byte-order mark
    status, err = audit_err(capsys, path)
    assert status == 2
    assert f"{path}: UTF-16 text: convert it to UTF-8" in err


def test_a_csv_with_a_header_and_no_rows_says_so(capsys, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("session_id,seq,kind,text\n", encoding="utf-8")
    status, err = audit_err(capsys, path)
    assert status == 2
    assert f"{path}: the file holds a header and no rows" in err


def test_a_parquet_file_of_20000_columns_is_refused_saying_how_many(capsys, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {"session_id": ["s"], "seq": [1], "kind": ["USER"]}
    columns |= {f"c{i}": [i] for i in range(20_000)}
    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table(columns), path)
    status, err = audit_err(capsys, path)
    assert status == 2
    assert f"{path}: the Parquet file has 20,003 columns; at most 1,000 are read" in err
    assert "Out of Memory" not in err


def test_the_event_detail_and_the_tree_preview_show_log_text_visibly():
    """Log text keeps its line ends and tabs in the detail, but no character in it hides
    itself or turns the rest around; ids there are escaped like everywhere else; the tree's
    one-line preview escapes them too."""
    from explorer.session.event_texts import preview_text
    from widgets.event_detail import describe
    text = "first line\r\n\tsecond \u202eline\u200b \x1b[31mred"
    event = {"call_id": "c\u202e1", "cost": 3, "turn_no": 1, "text": text}
    shown = describe(event, "s\u200bx")
    assert "session_id: s\\u200bx" in shown and "call_id: c\\u202e1" in shown
    # a terminal's colour code is taken out of the text (issue 17); kept, escaped, in raw
    assert "first line\r\n\tsecond \\u202eline\\u200b red" in shown
    assert preview_text(text) == "first line second \\u202eline\\u200b red"
    raw = describe(event | {"raw": json.dumps({"out": text})}, "s")
    assert "\\x1b[31mred" in raw.split("raw record:")[1]
