"""Reports (issue 20): one self-contained HTML or Markdown file that holds the figures
``audit --json`` gives, the findings, the provider check, and escapes hostile log text."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from explorer.cli.main import main
from tests.test_repair import FULL, SESSION


class _Page(HTMLParser):
    """The tags and the text of a page, and the audit table's rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.cells: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)
        if self.tags and self.tags[-1] == "td":
            self.cells.append(data)


def _page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _audit(capsys, *paths) -> dict:
    capsys.readouterr()
    assert main(["audit", "--json", *map(str, paths)]) in (0, 1)
    return json.loads(capsys.readouterr().out.splitlines()[0])


def _table(page: _Page, names) -> dict:
    cells = page.cells
    return {cells[i]: int(cells[i + 1].replace(",", "")) for i in range(len(cells) - 1)
            if cells[i] in names}


def test_an_html_report_of_a_corpus_file_holds_the_audit_figures(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(FULL), "--format", "html", str(out)]) == 0
    page = _page(out)
    audit = _audit(capsys, FULL)
    counts = {k: v for k, v in audit.items() if isinstance(v, int)}
    table = _table(page, counts)
    assert table and table == {k: counts[k] for k in table}
    assert table["dangling_calls"] == 3
    assert "script" not in page.tags and "svg" in page.tags and "polyline" in page.tags
    text = "".join(page.text)
    assert f"Session {SESSION}" in text
    assert "anthropic.unanswered" in text and "[dangling_calls]" in text


def test_the_demo_report_of_one_session_holds_the_corpus_figures(tmp_path, capsys):
    from explorer.cli.demo import demo_paths
    out = tmp_path / "demo.md"
    assert main(["report", "--demo", "--session", "s000064", "--format", "md", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    audit = _audit(capsys, *demo_paths())
    for name in ("events", "sessions", "orphan_results", "dangling_calls", "duplicates"):
        assert f"| {name.replace('_', chr(92) + '_')} | {audit[name]:,} |" in text
    assert text.count("\n## Session ") == 1 and "## Session s000064" in text


def test_a_hostile_log_is_escaped(tmp_path, write_lines):
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\u202eevil `code` | x"
    path = write_lines("h.jsonl",
                       json.dumps({"session_id": "<b>s</b>", "seq": 1, "kind": "USER",
                                   "text": hostile}),
                       json.dumps({"session_id": "<b>s</b>", "seq": 2, "kind": "RESULT",
                                   "call_id": "<i>c</i>", "text": hostile}))
    html_out, md_out = tmp_path / "h.html", tmp_path / "h.md"
    assert main(["report", str(path), "--format", "html", str(html_out)]) == 0
    assert main(["report", str(path), "--format", "md", str(md_out)]) == 0
    page = _page(html_out)
    assert not {"script", "img", "b", "i"} & set(page.tags)
    text = "".join(page.text)
    assert "<script>alert(1)</script>" in text and "\\u202e" in text and "\u202e" not in text
    md = md_out.read_text(encoding="utf-8")
    assert "\u202e" not in md
    outside_code = [line for line in md.splitlines() if not line.startswith("    ")]
    assert not any("<script" in line or "<b>" in line for line in outside_code)
    assert "&lt;b&gt;s&lt;/b&gt;" in md


def test_each_session_shows_the_strategy_view_at_the_budget(tmp_path):
    from explorer.compaction import SessionLog, Strategy, window
    from explorer.compaction.window import in_view
    from explorer.ingest.imports import import_paths
    from explorer.providers.session_check import DEFAULT_SETTINGS
    from explorer.store.db import Store
    from explorer.tokens.session_events import session_events
    out = tmp_path / "v.md"
    assert main(["report", str(FULL), "--strategy", "M0", "--budget", "2000", "--format",
                 "md", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    s = Store()
    import_paths(s, [FULL])
    log = SessionLog.from_frame(SESSION, session_events(s, SESSION, texts=False))
    kept = int(in_view(log, window(log, Strategy.parse("M0"), 2000, DEFAULT_SETTINGS)).sum())
    s.close()
    assert 0 < kept < log.n
    assert f"### View: M0 at 2,000 tokens\n\n{kept:,} of {log.n:,} events kept" in text
    assert text.count("    (out) ") == log.n - kept
