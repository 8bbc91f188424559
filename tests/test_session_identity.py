"""Session identity counts (explorer.audits.identity) on the real Claude Code files, with
the figures computed from the raw files by separate code here, and on small samples made
from a real file for what no real file of the corpus shows (a resumed session, a rewind,
one session id written from two folders): said at each."""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from explorer.audits.identity import COUNT_NAMES, identity
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS

CLAUDE = sorted((CORPUS / "claude-code").glob("*.jsonl"))
LINEAR = CORPUS / "claude-code" / "jnarowski-agentcmd__full-session.jsonl"
STORED = ("user", "assistant", "system")


def _expected(paths: list[Path]) -> dict[str, int]:
    """The four counts from the raw files: parents followed through every record (the
    skipped ones included) to the nearest conversation record."""
    counts = dict.fromkeys(COUNT_NAMES, 0)
    files_of: dict[str, set] = defaultdict(set)
    writers: dict[str, set] = defaultdict(set)
    sessions: dict[str, dict] = defaultdict(dict)
    for path in paths:
        recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        everything = {r["uuid"]: r for r in recs if r.get("uuid")}
        for r in recs:
            if r.get("type") not in STORED or not r.get("uuid"):
                continue
            files_of[r["uuid"]].add(path)
            writers[r["sessionId"]].add(r.get("cwd"))
            session = r["sessionId"] + (f"/{r.get('agentId') or 'sidechain'}"
                                        if r.get("isSidechain") else "")
            up = r.get("parentUuid") or r.get("logicalParentUuid")
            while up in everything and everything[up].get("type") not in STORED:
                up = everything[up].get("parentUuid")
            sessions[session].setdefault(r["uuid"], (up, (r.get("message") or {}).get("id"),
                                                     "tool_result" in json.dumps(
                                                         (r.get("message") or {}).get("content"))))
    counts["replayed_records"] = sum(len(f) > 1 for f in files_of.values())
    counts["session_id_reuse"] = sum(len(w - {None}) > 1 for w in writers.values())
    for records in sessions.values():
        kids = defaultdict(list)
        for u, (up, _, _) in records.items():
            kids[up].append(u)
        for up, found in kids.items():
            if up in records:
                counts["forked_chains"] += len(
                    [k for k in found if records[k][1] is None or records[k][1] != records[up][1]]) > 1
        reached, at = set(), list(records)[-1]
        while at in records and at not in reached:
            reached.add(at)
            at = records[at][0]
        ids = {records[u][1] for u in reached} - {None}
        reached |= {u for u, r in records.items() if r[1] in ids}
        reached |= {u for u, r in records.items() if r[2] and r[0] in reached}
        counts["unreachable_records"] += len(records) - len(reached)
    return counts


def test_the_real_files_counts_match_the_raw_files(store):
    import_paths(store, CLAUDE)
    counts, found = identity(store)
    assert counts == _expected(CLAUDE)
    # the real files are whole: parallel tool calls are no fork, compaction no break
    assert counts == dict.fromkeys(COUNT_NAMES, 0) and found == []


def _lines(path: Path = LINEAR) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("same_session", [False, True])
def test_a_resumed_session_replays_its_history_into_its_new_file(store, tmp_path, same_session):
    # No resumed session is in the corpus: its new file is made as Claude Code writes it,
    # the first 10 records replayed (same uuids), then a new exchange.
    old = _lines()
    new_id = old[0]["sessionId"] if same_session else str(uuid.uuid4())
    replay = [{**r, "sessionId": new_id} for r in old[:10]]
    fresh = [{**r, "sessionId": new_id, "uuid": str(uuid.uuid4())} for r in old[10:12]]
    fresh[0]["parentUuid"] = replay[-1]["uuid"]
    fresh[1]["parentUuid"] = fresh[0]["uuid"]
    paths = [LINEAR, _write(tmp_path / "resumed.jsonl", replay + fresh)]
    import_paths(store, paths)
    counts, found = identity(store)
    assert counts["replayed_records"] == 10 == _expected(paths)["replayed_records"]
    assert {f["rule"] for f in found} >= {"replayed_records"}
    assert all(len(f["events"]) >= 1 for f in found if f["rule"] == "replayed_records")


def test_a_rewind_forks_the_chain_and_leaves_the_old_branch_unreached(store, tmp_path):
    # No rewind is in the corpus: the person went back to a prompt and wrote another, its
    # parent the same as the first one's (written last).
    records = _lines()
    at = next(i for i, r in enumerate(records) if i > 0 and r["type"] == "user"
              and "tool_result" not in json.dumps(r["message"]["content"]))
    prompt = {**records[at], "uuid": str(uuid.uuid4()), "message": {
        "role": "user", "content": "no, do it the other way"}}
    path = _write(tmp_path / "rewound.jsonl", records + [prompt])
    import_paths(store, [path])
    counts, found = identity(store)
    expected = _expected([path])
    assert counts["forked_chains"] == 1 == expected["forked_chains"]
    # the first prompt and every record after it were on the branch left behind
    assert counts["unreachable_records"] == len(records) - at == expected["unreachable_records"]
    fork = next(f for f in found if f["rule"] == "forked_chains")
    assert len(fork["events"]) == 3   # the parent and its two children


def test_one_session_id_written_from_two_folders(store, tmp_path):
    # Not in the corpus: the same session id in another checkout's file (fresh uuids).
    records = _lines()
    moved = [{**r, "uuid": str(uuid.uuid4()), "parentUuid": None, "cwd": "/elsewhere"}
             for r in records[:2]]
    paths = [LINEAR, _write(tmp_path / "elsewhere.jsonl", moved)]
    import_paths(store, paths)
    counts, _ = identity(store)
    assert counts["session_id_reuse"] == 1 == _expected(paths)["session_id_reuse"]


def test_audit_json_and_findings_carry_the_identity_counts(capsys, tmp_path):
    from explorer.cli.main import main

    records = _lines()
    moved = [{**r, "uuid": str(uuid.uuid4()), "parentUuid": None, "cwd": "/elsewhere"}
             for r in records[:2]]
    paths = [str(LINEAR), str(_write(tmp_path / "elsewhere.jsonl", moved))]
    assert main(["audit", "--json", *paths]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["session_id_reuse"] == 1 and doc["replayed_records"] == 0
    assert set(COUNT_NAMES) <= set(doc) and doc["usage"]["responses"] > 0
    assert main(["audit", "--findings", "--json", *paths]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    reuse = [f for f in found if f["rule"] == "session_id_reuse"]
    assert len(reuse) == 1 and reuse[0]["session_id"] == records[0]["sessionId"]
