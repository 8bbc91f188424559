"""The corpus search box (widgets/corpus_search.py, issue 17): it lists what the search found
and says when the search read only the last texts (CJK alone, or words in too many texts)."""

from __future__ import annotations

import pytest

from explorer.session import corpus_search
from tests.helpers import imported_generated
from widgets import corpus_search as box
from widgets.workers import JobPool


@pytest.fixture
def search_box(qtbot, tmp_path):
    # English-ish and CJK sessions
    with imported_generated(tmp_path, sessions=12, turns=4, text=True) as store:
        jobs = JobPool()
        widget = box.CorpusSearch(store, jobs)
        qtbot.addWidget(widget)
        yield widget, store
        jobs.cancel_all()
        jobs.wait()
        widget.shutdown()


def _searched(qtbot, widget, words):
    widget.edit.setText(words)
    widget.run()
    qtbot.waitUntil(lambda: widget.status.text() not in ("searching…", "")
                    and not widget.status.text().startswith("indexing"), timeout=20_000)
    return widget.status.text()


def test_the_box_says_when_it_read_the_last_texts_only(qtbot, search_box, monkeypatch):
    widget, store = search_box
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 60)
    monkeypatch.setattr(box, "SCAN_TEXTS", 60)
    said = _searched(qtbot, widget, "的")
    assert "in the last 60 texts" in said
    found = corpus_search.find(store, "的")
    assert found.bounded_from is not None
    assert [(h.session_id, h.events) for h in widget.hits()] == \
        [(h.session_id, h.events) for h in found.hits] != []
    said = _searched(qtbot, widget, "the")                 # the index answers it whole
    assert "in the last" not in said and widget.hits() == corpus_search.search(store, "the")
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 10**9)
    said = _searched(qtbot, widget, "的")
    assert "in the last" not in said
    assert widget.hits() == corpus_search.search(store, "的", indexed=False)


def test_a_long_status_neither_widens_the_box_nor_squeezes_its_words(qtbot, search_box,
                                                                      monkeypatch):
    """At 1280x800 the bounded search's status once widened the session pane to 710 px and
    left the words 20 px: it now wraps on a line of its own."""
    widget, _ = search_box
    widget.resize(320, 300)
    widget.show()
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 60)
    monkeypatch.setattr(box, "SCAN_TEXTS", 60)
    assert "in the last 60 texts" in _searched(qtbot, widget, "的")
    assert widget.minimumSizeHint().width() < 150   # the status asks for no width
    assert widget.edit.width() >= 300
