"""A session read narrow (no text, no raw) and its texts read by eid give what the wide
frame gives: the same columns otherwise, the same previews, details, chars and usage."""

from __future__ import annotations

import pytest

from explorer.compaction.log import SessionLog
from explorer.session.data import load_session
from explorer.session.event_texts import EventTexts, FrameTexts
from explorer.session.reported_usage import session_usage
from explorer.tokens.session_events import session_events

SESSIONS = ["k0002", "s000012", "s000051"]


@pytest.mark.parametrize("session", SESSIONS)
def test_the_narrow_read_is_the_wide_one_without_its_texts(demo, session):
    wide = session_events(demo, session, "ts-unstable")
    narrow = session_events(demo, session, "ts-unstable", texts=False)
    assert narrow.equals(wide.drop("text", "raw", "call_pos", "result_pos"))
    # DuckDB's length is polars' count of code points (SessionLog's chars read it)
    assert wide["text_chars"].to_list() == wide["text"].str.len_chars().fill_null(0).to_list()


@pytest.mark.parametrize("session", SESSIONS)
def test_texts_read_by_eid_are_the_frames(demo, session):
    wide = session_events(demo, session, "seq")
    frame_texts = FrameTexts(wide)
    texts = EventTexts(demo, wide["eid"].to_numpy(), block=7, kept=2)
    rows = list(range(wide.height))
    assert [texts.preview(r) for r in rows] == [frame_texts.preview(r) for r in rows]
    assert any(frame_texts.preview(r) for r in rows)
    assert texts.reads == -(-wide.height // 7)   # one read a block, none when kept
    texts.preview(0)
    assert texts.reads == -(-wide.height // 7) + (wide.height > 14)
    for r in rows[::5]:   # the text and raw, and the stored columns a narrow frame leaves out
        detail = texts.detail(r)
        assert {k: detail[k] for k in ("text", "raw")} == frame_texts.detail(r)
        assert {k: v for k, v in detail.items() if k not in ("text", "raw")} == {
            k: wide[k][r] for k in detail if k not in ("text", "raw")}
        assert {"ts", "event_id", "file_id", "line", "parent_call"} <= set(detail)
    texts.close()


@pytest.mark.parametrize("session", SESSIONS)
def test_the_session_data_is_the_wide_frames(demo, session):
    wide = session_events(demo, session, "seq")
    data = load_session(demo, session, "seq")
    assert data.usage == session_usage(wide["raw"].drop_nulls())
    assert [data.event(r) for r in range(wide.height)] == wide.drop("call_pos", "result_pos").to_dicts()
    log, expected = data.log, SessionLog.from_frame(session, wide)
    for name in ("kind", "cost", "call", "message", "user", "chars", "eid"):
        assert getattr(log, name).tolist() == getattr(expected, name).tolist(), name
    assert log.call_ids == wide["call_id"].to_list() and log.tools == wide["tool"].to_list()
    for name, column in (("call", "call_id"), ("message", "message_id"), ("user", "user_id")):
        # equal ids, equal codes; distinct ids, distinct codes; None -> -1 (the numbers
        # themselves mean nothing)
        codes, ids = getattr(log, name).tolist(), wide[column].to_list()
        assert [c == -1 for c in codes] == [v is None for v in ids], name
        pairs = {(c, v) for c, v in zip(codes, ids) if v is not None}
        assert len(pairs) == len({c for c, _ in pairs}) == len({v for _, v in pairs}), name


def test_a_closed_store_reads_nothing_and_raises_nothing(demo, tmp_path):
    from explorer.store.db import Store
    store = Store(tmp_path / "t.duckdb")
    texts = EventTexts(store, [1, 2, 3])
    store.close()
    assert texts.preview(0) == "" and texts.detail(1) == {"text": None, "raw": None}
    assert texts.reads == 2
