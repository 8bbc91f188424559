"""``turnscope audit``: import the given logs (or open a database) and print the audits."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

import queries
from explorer.audits import cache as audit_cache
from explorer.audits import counts as audits
from explorer.audits import findings_cache, identity
from explorer.cli import messages
from explorer.formats import LogFileError
from explorer.ingest.imports import ACCOUNT_KEYS, import_paths, open_database
from explorer.model import CostSettings, Order
from explorer.session.reported_usage import SessionUsage, corpus_usage
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
    report = import_paths(store, args.paths, ask_password=_ask_password)
    errors.extend(report.errors)
    # A file an earlier, killed import was reading (and not given again now) is missing.
    errors.extend(LogFileError(p, "did not finish importing (the process stopped); import it "
                                  "again") for p in durability.unfinished_imports(store))
    # A file whose earlier import failed (and not given again now) is missing too.
    failed_now = {durability.import_key(exc.path) for exc in errors}
    errors.extend(LogFileError(p, durability.failed_message(reason))
                  for p, reason in durability.failed_imports(store) if p not in failed_now)
    order = Order(args.order)
    try:
        gates = fail_on(getattr(args, "fail_on", None))
    except ValueError as exc:
        messages.error("audit", exc)
        return 2
    if errors and not report.files and not args.db:
        for exc in errors:
            messages.error("audit", exc)
        return 2
    counts = None
    if args.findings:
        _print_findings(store, order, args.json, cached=bool(args.db))
    else:
        counts = _counts(store, order, settings, cached=bool(args.db))
        files = store.frame("list_files").to_dicts()
        counts = {**counts, **identity.identity(store)[0]}
        _print_counts(counts, files, order, args.json, errors, ledger(store), report.not_logs)
    if getattr(args, "junit", None):
        _write_junit(store, order, args.junit)
    passed = []
    if gates:
        counts = counts or _counts(store, order, settings, cached=bool(args.db))
        passed = [(name, counts[name], n) for name, n in gates if counts[name] > n]
        for name, count, n in passed:
            messages.error("audit", f"--fail-on: {name} is {count}, more than {n}")
    rejected = sum(f["rejected"] for f in store.frame("list_files").to_dicts())
    for exc in errors:
        messages.error("audit", exc)
    if rejected:
        messages.rejected_warning("audit", rejected, store.run("rejected_lines", limit=5))
    if errors or (rejected and args.strict):
        return 2
    return 1 if passed else 0


def _ask_password(shown_url: str) -> str | None:
    """The database's password typed at the terminal (never echoed, never kept); None when
    there is no terminal to ask at."""
    if not sys.stdin.isatty():
        return None
    import getpass
    return getpass.getpass(f"password for {visible(shown_url)}: ")


def fail_on(text: str | None) -> list[tuple[str, int]]:
    """``--fail-on RULE[:N][,RULE...]`` as (count name, threshold) pairs."""
    if not text:
        return []
    gates = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, n = part.partition(":")
        if name not in audits.COUNT_NAMES:
            raise ValueError(f"--fail-on: {name!r} is not an AUDITS.md count (one of "
                             f"{', '.join(audits.COUNT_NAMES)})")
        try:
            threshold = int(n) if n else 0
        except ValueError:
            raise ValueError(f"--fail-on: {part!r}: the threshold is an integer") from None
        if threshold < 0:
            raise ValueError(f"--fail-on: {part!r}: the threshold is >= 0")
        gates.append((name, threshold))
    return gates


def _write_junit(db: Db, order: Order, path: str) -> None:
    """One test case per session (input order), failing with its findings."""
    from explorer.cli import junit
    by_session: dict[str, list[str]] = {}
    for finding in audits.findings(db, order):
        by_session.setdefault(finding["session_id"], []).append(_finding_line(finding))
    junit.write(path, "audit", [(name, by_session.get(name, []))
                                for (name,) in db.run("sessions_in_input_order")])


def _finding_line(finding: dict) -> str:
    events = ", ".join(
        f"{e['kind']}#{e['seq']}" + (f".{e['sub']}" if e["sub"] else "")
        + (f"[{e['call_id']}]" if e["call_id"] is not None else "")
        for e in finding["events"])
    return visible(f"{finding['rule']}  {events}")


def ledger(db: Db, batch: int = 10_000) -> dict:
    """The token ledger: the usage the writers reported, per session and for the corpus
    (explorer.session.reported_usage.corpus_usage), read a batch at a time."""
    cur = db.con.execute(queries.render("corpus_usage_raws"))
    return corpus_usage(tuple(row) for rows in iter(lambda: cur.fetchmany(batch), [])
                        for row in rows)


def counts_document(counts: dict, files: list[dict], order: Order,
                    errors: list[LogFileError] = (), usage: dict | None = None,
                    not_logs: list[LogFileError] = ()) -> dict:
    """The ``audit --json`` object: AUDITS.md's counts, then rejected, order, input files,
    the files that failed (now, in an earlier import, or stopped), and the token ledger
    (``usage``: what the writers reported, never a cost), and the files found in the
    folders given that are not logs (``not_logs``: path and why)."""
    doc = dict(counts)
    doc["rejected"] = sum(f["rejected"] for f in files)
    doc["order"] = order.value
    doc["files"] = [{"path": f["path"], "format": f["format"], **{k: f[k] for k in _INPUT_KEYS},
                     "skipped_by_reason": json.loads(f["skipped_by_reason"] or "{}"),
                     "unknown_types": json.loads(f.get("unknown_types") or "{}")}
                    for f in files]
    doc["input"] = {k: sum(f[k] for f in files) for k in _INPUT_KEYS}
    doc["failed"] = [{"path": exc.path, "reason": exc.reason} for exc in errors]
    if usage is not None:
        doc["usage"] = usage
    doc["not_logs"] = [{"path": exc.path, "reason": exc.reason} for exc in not_logs]
    return doc


def _print_counts(counts: dict, files: list[dict], order: Order, as_json: bool,
                  errors: list[LogFileError], usage: dict | None = None,
                  not_logs: list[LogFileError] = ()) -> None:
    doc = counts_document(counts, files, order, errors, usage, not_logs)
    if as_json:
        print(json.dumps(doc))
        return
    width = max(map(len, doc))
    print(f"audit in {order.value} order of {len(files)} file(s)")
    for key in (*audits.COUNT_NAMES, "rejected", *identity.COUNT_NAMES):
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
    if not_logs:
        print(f"{len(not_logs)} file(s) in the folders given are not logs (not imported):")
        for exc in not_logs[:10]:
            print(visible(f"  {exc}"))
        if len(not_logs) > 10:
            print(f"  ... and {len(not_logs) - 10} more (audit --json lists them all)")
    if usage and usage["responses"]:
        print(f"{SessionUsage(usage['responses'], usage['output'], usage['input'], usage['cached_input']).text()} "
              f"in {len(usage['sessions'])} session(s) (as the writers reported it; never a cost)")


def _counts(db: Db, order: Order, settings: CostSettings, cached: bool) -> dict:
    """The corpus counts; of a database (``cached``), summed over its audit table, computed
    only when stale (explorer.audits.cache): a second run on it reads the table."""
    if not cached:
        return audits.corpus_counts(db, order, settings)
    return audit_cache.totals(db, audit_cache.ensure(db, order, settings))


def _print_findings(db: Db, order: Order, as_json: bool, cached: bool = False) -> None:
    out = sys.stdout
    for finding in _findings(db, order, cached):
        if as_json:
            out.write(json.dumps(finding, ensure_ascii=False) + "\n")
            continue
        rule, events = _finding_line(finding).split("  ", 1)
        out.write(visible(f"{rule:<20} {finding['session_id']}  {events}") + "\n")


def _findings(db: Db, order: Order, cached: bool) -> Iterator[dict]:
    """AUDITS.md's findings, then the session identity ones (explorer.audits.identity)."""
    yield from (findings_cache.all_findings(db, findings_cache.ensure(db, order)) if cached
                else audits.findings(db, order))
    yield from identity.identity(db)[1]
