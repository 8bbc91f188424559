"""``turnscope audit``: import the given logs (or open a database) and print the audits."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.audits import cache as audit_cache
from explorer.audits import counts as audits
from explorer.audits import findings_cache
from explorer.cli import messages
from explorer.formats import LogFileError
from explorer.ingest.imports import ACCOUNT_KEYS, import_paths, open_database
from explorer.model import CostSettings, Order
from explorer.store import durability
from explorer.store.db import Db, StoreError
from explorer.text_escape import visible
from explorer.tokens.counts import checked

#: The accounting of each input file (records = imported + skipped + rejected + duplicates).
_INPUT_KEYS = ACCOUNT_KEYS


def run_audit(args: argparse.Namespace) -> int:
    """Run the audit subcommand; returns the exit status."""
    if not args.paths and not args.db:
        print("turnscope audit: error: give at least one PATH (or --demo), or --db PATH",
              file=sys.stderr)
        return 2
    try:
        settings = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
        store, rebuilt = open_database(args.db)
    except (StoreError, ValueError) as exc:
        messages.error("audit", exc)
        return 2
    errors: list[LogFileError] = list(rebuilt.errors) if rebuilt else []
    report = import_paths(store, args.paths)
    errors.extend(report.errors)
    # A file an earlier, killed import was reading (and not given again now) is missing.
    errors.extend(LogFileError(p, "did not finish importing (the process stopped); import it "
                                  "again") for p in durability.unfinished_imports(store))
    # A file whose earlier import failed (and not given again now) is missing too.
    failed_now = {durability.import_key(exc.path) for exc in errors}
    errors.extend(LogFileError(p, durability.failed_message(reason))
                  for p, reason in durability.failed_imports(store) if p not in failed_now)
    order = Order(args.order)
    if errors and not report.files and not args.db:
        for exc in errors:
            messages.error("audit", exc)
        return 2
    if args.findings:
        _print_findings(store, order, args.json, cached=bool(args.db))
    else:
        counts = _counts(store, order, settings, cached=bool(args.db))
        files = store.frame("list_files").to_dicts()
        _print_counts(counts, files, order, args.json, errors)
    rejected = sum(f["rejected"] for f in store.frame("list_files").to_dicts())
    for exc in errors:
        messages.error("audit", exc)
    if rejected:
        _warn_rejected(store, rejected)
    if errors or (rejected and args.strict):
        return 2
    return 0


def counts_document(counts: dict, files: list[dict], order: Order,
                    errors: list[LogFileError] = ()) -> dict:
    """The ``audit --json`` object: AUDITS.md's counts, then rejected, order, input files,
    and the files that failed (now, in an earlier import, or stopped)."""
    doc = dict(counts)
    doc["rejected"] = sum(f["rejected"] for f in files)
    doc["order"] = order.value
    doc["files"] = [{"path": f["path"], "format": f["format"], **{k: f[k] for k in _INPUT_KEYS},
                     "skipped_by_reason": json.loads(f["skipped_by_reason"] or "{}"),
                     "unknown_types": json.loads(f.get("unknown_types") or "{}")}
                    for f in files]
    doc["input"] = {k: sum(f[k] for f in files) for k in _INPUT_KEYS}
    doc["failed"] = [{"path": exc.path, "reason": exc.reason} for exc in errors]
    return doc


def _print_counts(counts: dict, files: list[dict], order: Order, as_json: bool,
                  errors: list[LogFileError]) -> None:
    doc = counts_document(counts, files, order, errors)
    if as_json:
        print(json.dumps(doc))
        return
    width = max(map(len, doc))
    print(f"audit in {order.value} order of {len(files)} file(s)")
    for key in (*audits.COUNT_NAMES, "rejected"):
        print(f"  {key:<{width}}  {doc[key]:>10}")
    print("input records (records = imported + skipped + rejected + duplicates)")
    for key in _INPUT_KEYS:
        print(f"  {key:<{width}}  {doc['input'][key]:>10}")
    reasons: dict[str, int] = {}
    for f in doc["files"]:
        for reason, n in f["skipped_by_reason"].items():
            reasons[reason] = reasons.get(reason, 0) + n
    if reasons:
        print("skipped records by reason")
    for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:>{width + 12}}  {reason}")
    drifted = [f for f in doc["files"] if f["unknown_types"]]
    if drifted:
        print("records of unknown types (kept as OTHER events), per file")
    for f in drifted:
        print(f"  {visible(f['path'])}")
        for kind, n in f["unknown_types"].items():
            print(f"  {n:>{width + 12}}  {visible(kind)}")


def _counts(db: Db, order: Order, settings: CostSettings, cached: bool) -> dict:
    """The corpus counts; of a database (``cached``), summed over its audit table, computed
    only when stale (explorer.audits.cache): a second run on it reads the table."""
    if not cached:
        return audits.corpus_counts(db, order, settings)
    return audit_cache.totals(db, audit_cache.ensure(db, order, settings))


def _print_findings(db: Db, order: Order, as_json: bool, cached: bool = False) -> None:
    out = sys.stdout
    found = (findings_cache.all_findings(db, findings_cache.ensure(db, order)) if cached
             else audits.findings(db, order))
    for finding in found:
        if as_json:
            out.write(json.dumps(finding, ensure_ascii=False) + "\n")
            continue
        events = ", ".join(
            f"{e['kind']}#{e['seq']}" + (f".{e['sub']}" if e["sub"] else "")
            + (f"[{e['call_id']}]" if e["call_id"] is not None else "")
            for e in finding["events"])
        out.write(visible(f"{finding['rule']:<20} {finding['session_id']}  {events}") + "\n")


def _warn_rejected(db: Db, rejected: int) -> None:
    shown = db.run("rejected_lines", limit=5)
    print(f"turnscope audit: warning: {rejected} input line(s) rejected and kept aside:",
          file=sys.stderr)
    for path, line, reason in shown:
        messages.say(f"  {path}:{line}: {reason}")
    if rejected > len(shown):
        print(f"  ... and {rejected - len(shown)} more", file=sys.stderr)
