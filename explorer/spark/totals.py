"""The driver's part: the figures of every task (explorer.spark.partition.run) added up into
the corpus's, as the commands print them on one machine.

Why a sum is right for each figure (the partition key is the storage key as written, so a
session's rows, all of its files', are in one task):
- AUDITS.md's counts are per session (``sessions``: one row each), so sums; ``duplicates``
  and ``event_id_conflicts`` compare rows of one session, ``shared_keys`` the files of one
  session (each task imports every file's rows of its sessions as that file), key collapse
  the ``user_id``s of one session or (session, turn): all within a task. The identity counts
  read Claude Code files, which the engine does not read (0, as on one machine for
  canonical files).
- A file's accounting (records, imported, rejected, duplicates, skipped by reason) is a sum
  over its rows, each row in exactly one task; a row that names no session is rejected in
  the task its (null) key went to.
- STRATEGIES.md's corpus figures are sums over sessions but ``max_cost`` (a maximum) and
  ``over_ratio`` (recomputed from the sums); ``rejected_<provider>`` counts windows: a sum.
- validate's verdicts are per session; the sessions are put in input order by the file and
  line of their first event.
"""

from __future__ import annotations

import json

from explorer.audits import identity
from explorer.audits.rules import COUNT_NAMES
from explorer.compaction.sweep import FIGURES
from explorer.formats import LogFileError
from explorer.ingest.report import ACCOUNT_KEYS
from explorer.spark.partition import PARQUET, Job

#: The audit --json counts, in their order (AUDITS.md's, then the session identity ones).
AUDIT_KEYS = (*COUNT_NAMES, *identity.COUNT_NAMES)
#: What a file's accounting adds up.
_FILE_SUMS = tuple(dict.fromkeys((*ACCOUNT_KEYS, "events")))


def failures(results: list[dict], job: Job) -> tuple[list[LogFileError], set[int]]:
    """The files that could not be read (once each, in input order) and their indexes; a
    file no task had a row of holds no records (explorer.ingest.imports says it so too)."""
    failed: dict[int, LogFileError] = {}
    for r in results:
        for e in r["errors"]:
            failed.setdefault(e["file"], LogFileError(e["path"], e["reason"]))
    seen = {f["file"] for r in results for f in r["files"]}
    for index, source in enumerate(job.inputs):
        if index not in seen and index not in failed:
            nothing = "no rows" if source.reader == PARQUET else "no records (only blank lines)"
            failed[index] = LogFileError(source.path, f"the file holds {nothing}")
    return [failed[i] for i in sorted(failed)], set(failed)


def files(results: list[dict], failed: set[int]) -> list[dict]:
    """Each file read (input order) with its accounting summed over the tasks, as
    queries/list_files.sql gives it on one machine."""
    merged: dict[int, dict] = {}
    for r in results:
        for f in r["files"]:
            if f["file"] in failed:
                continue
            into = merged.setdefault(f["file"], {**f, **dict.fromkeys(_FILE_SUMS, 0),
                                                 "skipped_by_reason": {}, "unknown_types": {}})
            for key in _FILE_SUMS:
                into[key] += f[key]
            for key in ("skipped_by_reason", "unknown_types"):
                for name, n in json.loads(f[key] or "{}").items():
                    into[key][name] = into[key].get(name, 0) + n
    out = []
    for index in sorted(merged):
        f = merged[index]
        reasons = sorted(f["skipped_by_reason"].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append({**f, "skipped_by_reason": json.dumps(dict(reasons), ensure_ascii=False),
                    "unknown_types": json.dumps(dict(sorted(f["unknown_types"].items())),
                                                ensure_ascii=False)})
    return out


def rejected_lines(results: list[dict], limit: int) -> list[tuple]:
    """The first rejected lines of all tasks, by file (input order) and line."""
    index = {f["path"]: f["file"] for r in results for f in r["files"]}
    rows = [tuple(row) for r in results for row in r["rejected_lines"]]
    return sorted(rows, key=lambda row: (index.get(row[0], -1), row[1]))[:limit]


def audit_counts(results: list[dict]) -> dict[str, int]:
    """audit's counts: sums over the tasks' (each a sum over its sessions)."""
    return {key: sum(r["audit"]["counts"][key] for r in results if "audit" in r)
            for key in AUDIT_KEYS}


def usage(results: list[dict]) -> dict:
    """The token ledger: the tasks' sessions (by session id, as on one machine) and their sum."""
    sessions: dict[str, dict] = {}
    for r in results:
        if "audit" in r:
            sessions.update(r["audit"]["usage"]["sessions"])
    total = dict.fromkeys(("responses", "input", "cached_input", "output"), 0)
    for figures in sessions.values():
        for key in total:
            total[key] += figures[key]
    return {**total, "sessions": dict(sorted(sessions.items()))}


def sweep_rows(results: list[dict], job: Job, more: tuple[str, ...] = ()) -> list[dict]:
    """sweep's rows: per (strategy, budget), every task's figures summed, ``max_cost`` their
    maximum and ``over_ratio`` kept_cost / (B x windows) of the sums (STRATEGIES.md)."""
    rows = [{"strategy": s, "budget": b, **dict.fromkeys((*FIGURES, *more), 0)}
            for s in job.strategies for b in job.budgets]
    for r in (r for r in results if "sweep" in r):
        for into, row in zip(rows, r["sweep"], strict=True):
            for key in (*FIGURES, *more):
                if key == "max_cost":
                    into[key] = max(into[key], row[key])
                elif key != "over_ratio":
                    into[key] += row[key]
    for row in rows:
        windows, kept = row["windows"], row["kept_cost"]
        row["over_ratio"] = round(kept / (row["budget"] * windows), 6) if windows else 0.0
    return rows


def verdicts(results: list[dict]) -> list[dict]:
    """validate's sessions, in input order (the file and line of their first event)."""
    sessions = [s for r in results for s in r.get("validate", ())]
    return sorted(sessions, key=lambda s: tuple(s["first"]))
