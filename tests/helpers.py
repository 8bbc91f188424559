"""Small helpers shared by the core tests (no Qt)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.formats import LogFileError, detect
from explorer.ingest.imports import import_paths
from explorer.store.db import Db, Store


def jsonl(path: Path, rows: list[dict]) -> Path:
    """Write rows as JSON Lines."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def jsonl_present(path: Path, rows: list[dict]) -> Path:
    """Write generated rows as JSON Lines, leaving out the fields that are None (absent)."""
    return jsonl(path, [{k: v for k, v in r.items() if v is not None} for r in rows])


@contextmanager
def imported_rows(folder: Path, rows: list[dict]) -> Iterator[Store]:
    """A fresh in-memory database holding generated ``rows`` (written to ``folder`` as
    JSON Lines, absent fields left out), imported without a file error; closed after."""
    path = jsonl_present(folder / "r.jsonl", rows)
    store = Store()
    try:
        assert not import_paths(store, [path]).errors
        yield store
    finally:
        store.close()


@contextmanager
def imported_generated(folder: Path, **generate_args) -> Iterator[Store]:
    """A fresh in-memory database holding ``explorer.cli.generate.generate(**generate_args)``
    (written to ``folder``), imported; closed after."""
    from explorer.cli.generate import generate

    source = folder / "gen.jsonl"
    generate(source, **generate_args)
    store = Store()
    try:
        import_paths(store, [str(source)])
        yield store
    finally:
        store.close()


def cassette_body(part: dict, streamed: Callable[[list[dict]], dict]) -> dict:
    """A recorded body as the format tests read it, apart from the readers: pydantic-ai's
    ``parsed_body``, vcrpy's JSON string, or a streamed reply, whose ``data:`` payloads
    ``streamed`` (the test's own few lines for its API) turns into the reply."""
    if "parsed_body" in part:
        return part["parsed_body"]
    text = part["body"]["string"] if isinstance(part["body"], dict) else part["body"]
    try:
        return json.loads(text)
    except ValueError:
        return streamed([json.loads(line[5:]) for line in text.splitlines()
                         if line.startswith("data:") and line[5:].strip() != "[DONE]"])


def load(db: Db, *paths: Path):
    """Import files and fail loudly on a file-level error."""
    report = import_paths(db, list(paths))
    assert not report.errors, report.errors
    return report


def events_as_dicts(db: Db) -> list[dict]:
    """Every stored event with the fields tests/reference.py reads."""
    rows = db.con.execute(
        "SELECT eid, file_id, session_id, seq, sub, ts, CAST(kind AS VARCHAR), call_id, "
        "user_id, turn, event_id, d.note, d.raw FROM events LEFT JOIN event_details d "
        "USING (eid) ORDER BY eid").fetchall()
    keys = ("eid", "file", "session_id", "seq", "sub", "ts", "kind", "call_id", "user_id",
            "turn", "event_id", "note", "raw")
    return [dict(zip(keys, r)) for r in rows]


def finding_counts(db: Db, order: str) -> dict[str, int]:
    """How many findings each rule printed."""
    counts = dict.fromkeys(audits.FINDING_RULES, 0)
    for f in audits.findings(db, order):
        counts[f["rule"]] += 1
    return counts


def stored_kinds(db: Db, session_id: str | None = None) -> Counter:
    """How many stored events there are of each kind (in one session when given)."""
    rows = db.con.execute(
        "SELECT CAST(kind AS VARCHAR), count(*) FROM events "
        "WHERE $s IS NULL OR session_id = $s GROUP BY 1", {"s": session_id}).fetchall()
    return Counter(dict(rows))


#: The per-session counts the format tests derive from each file's own ids.
PAIR_COUNTS = ("calls", "results", "dangling_calls", "orphan_results")


def pair_counts(db: Db) -> dict[str, dict[str, int]]:
    """Per session, the audit's PAIR_COUNTS (explorer.audits.counts.session_counts)."""
    from explorer.audits import counts as audits
    return {row["session_id"]: {k: row[k] for k in PAIR_COUNTS}
            for row in audits.session_counts(db).iter_rows(named=True)}


def corpus_and_demo(leave_out=()) -> list[Path]:
    """Every file of ../shared/corpus and the demo data, but those in ``leave_out``."""
    from tests.conftest import CORPUS

    left = {Path(p) for p in leave_out}
    files = [p for p in sorted(CORPUS.rglob("*")) if p.is_file()]  # SOURCES.md too
    # A checkout without ../shared/corpus fails here, not with tests that loop over nothing.
    assert len(files) > 1, f"no corpus at {CORPUS}: the tests need ../shared/ beside the checkout"
    return [p for p in files + [Path(p) for p in demo_paths()] if p not in left]


def detected_as(names: str | set[str], paths) -> list[Path]:
    """Those of ``paths`` that formats.detect reads as one of ``names`` (a file it refuses
    is read as none)."""
    names = {names} if isinstance(names, str) else set(names)
    found = []
    for path in paths:
        try:
            if detect(Path(path)).NAME in names:
                found.append(Path(path))
        except LogFileError:
            pass
    return found


def demo_counts() -> dict[str, int]:
    """The corpus counts of AUDITS.md for the demo data, computed in this process (what an
    installed or bundled `turnscope audit --demo --json` must print)."""
    from explorer.audits import counts as audits
    from explorer.cli.demo import demo_paths
    from explorer.store.db import Store
    store = Store()
    load(store, *demo_paths())
    counts = audits.corpus_counts(store)
    store.close()
    return counts


def png_size(path) -> tuple[int, int]:
    """Width and height of a PNG, from its header (no Qt needed)."""
    import struct
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    return struct.unpack(">II", head[16:24])
