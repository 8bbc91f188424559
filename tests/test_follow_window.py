"""The window following a growing Claude Code transcript (File → Follow…, --follow): another
process appends to the file (with a torn write in the middle) and the window shows the new
records within 10 s, the selected event kept selected."""

from __future__ import annotations

import subprocess
import sys

from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.test_follow import LOG, lines
from widgets.app import make_window

WRITER = """
import sys, time
path, start = sys.argv[1], int(sys.argv[2])
rest = open(sys.argv[3], "rb").read().splitlines(keepends=True)[start:]
with open(path, "ab", buffering=0) as fh:
    for i, line in enumerate(rest):
        if i == 3:   # a line written in two parts: the window must wait for its end
            fh.write(line[:40]); time.sleep(0.4); fh.write(line[40:])
        else:
            fh.write(line)
        time.sleep(0.02)
"""


def _events_of(path) -> tuple[str, int]:
    store = Store(None)
    import_paths(store, [path])
    return store.con.execute("SELECT session_id, count(*) FROM events GROUP BY 1").fetchone()


def test_window_shows_records_appended_by_another_process(qtbot, tmp_path):
    all_lines = lines()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(all_lines[:12]))
    session, before = _events_of(path)
    window = make_window([], follow=str(path))
    qtbot.addWidget(window)
    panel = window.session_panel
    qtbot.waitUntil(lambda: window.workspace.data is not None
                    and panel.model.event_count() == before, timeout=10_000)
    assert window.follow_job.badge.isVisibleTo(window) and window.follow_action.isChecked()
    assert "following" in window.follow_job.badge.text()
    panel.select_row(3)
    chosen = panel.model.event(panel.model.frame_row(panel.tree.currentIndex()))

    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(b"".join(all_lines))
    _, after = _events_of(whole)
    assert after > before
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "12", str(LOG)])
    try:
        qtbot.waitUntil(lambda: window.workspace.data is not None
                        and panel.model.event_count() == after, timeout=10_000)
    finally:
        writer.wait(30)
    assert window.sessions.selected_session() == session
    qtbot.waitUntil(lambda: panel.tree.currentIndex().isValid(), timeout=5_000)
    now = panel.model.event(panel.model.frame_row(panel.tree.currentIndex()))
    assert (now["seq"], now["sub"]) == (chosen["seq"], chosen["sub"])
    files = window.store.frame("list_files").to_dicts()
    assert len(files) == 1 and files[0]["rejected"] == 0   # the torn line was never read torn
    window.close()
