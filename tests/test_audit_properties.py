"""Property test: the DuckDB audits equal the plain-Python reading of AUDITS.md on random logs."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.audits import counts as audits
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests import reference
from tests.helpers import events_as_dicts, jsonl_present

KINDS = ["USER", "ASSISTANT", "CALL", "RESULT", "SYSTEM", "SUMMARY"]

row = st.fixed_dictionaries({
    "session_id": st.sampled_from(["a", "b", "c"]),
    "seq": st.integers(1, 12),
    "sub": st.integers(0, 2),
    "kind": st.sampled_from(KINDS),
    "call_id": st.sampled_from([None, "", "x", "y", "z"]),
    "ts": st.one_of(st.none(), st.integers(0, 6).map(lambda t: 1000 + 10 * t)),
    "chars": st.integers(0, 3),
    "user_id": st.sampled_from([None, "u1", "u2"]),
    "turn": st.sampled_from([None, 1, 2]),
    "event_id": st.sampled_from([None, "e1", "e2", "e3"]),
})


def _dedup(rows: list[dict]) -> tuple[list[dict], list[tuple[str, int]]]:
    """FORMAT.md: same session, event_id and content -> the first row in file order is kept."""
    seen, kept, dropped = set(), [], []
    for i, r in enumerate(rows):
        key = (r["session_id"], r["event_id"], r["kind"], r["call_id"] or None, r["chars"])
        if r["event_id"] is not None and key in seen:
            dropped.append((r["session_id"], r["file"]))
            continue
        seen.add(key)
        kept.append(r | {"eid": i})
    return kept, dropped


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.lists(row, min_size=1, max_size=25), min_size=1, max_size=2))
def test_sql_equals_reference(tmp_path_factory, files):
    folder = tmp_path_factory.mktemp("logs")
    paths, expected_rows = [], []
    for n, rows in enumerate(files):
        paths.append(jsonl_present(folder / f"f{n}.jsonl", rows))
        expected_rows += [r | {"file": n + 1} for r in rows]
    kept, dropped = _dedup(expected_rows)
    store = Store()
    try:
        report = import_paths(store, paths)
        assert not report.errors and report.rejected == 0
        stored = events_as_dicts(store)
        assert len(stored) == len(kept)
        for order in ("seq", "ts", "ts-unstable"):
            want = reference.audit(stored, order, len(dropped), dropped)
            assert audits.corpus_counts(store, order) == want, order
    finally:
        store.close()
