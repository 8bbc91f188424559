"""``audit|sweep|validate PATH... --engine spark [--master URL]``: the same figures, computed
on Apache Spark (explorer.spark), printed as the DuckDB engine prints them."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli import messages
from explorer.cli.audit import _print_counts, counts_document, fail_on
from explorer.cli.compaction import _print_table, _settings, _write_rows
from explorer.cli.validate import print_verdict
from explorer.compaction.sweep import FIGURES
from explorer.formats import limits
from explorer.model import CostSettings, Order
from explorer.providers import parse_providers
from explorer.providers.sweep_figures import figure_names
from explorer.tokens.counts import checked

#: What the Spark engine does not do (yet): said, exit status 2.
_UNSUPPORTED = {"db": "--db (the Spark engine reads its inputs itself)",
                "findings": "--findings", "junit": "--junit", "trigger": "--trigger"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb",
                   help="where the figures are computed: duckdb (this machine, default) or "
                        "spark (Apache Spark: pip install 'turnscope[spark]'; the same figures)")
    p.add_argument("--master", metavar="URL", default=None,
                   help="with --engine spark: the Spark master (default local[*], or what "
                        "spark-submit set)")
    p.add_argument("--partitions", type=int, default=None, metavar="N",
                   help="with --engine spark: the number of tasks (default: from the input size)")


def run_spark(args: argparse.Namespace) -> int:
    command = args.command
    for name, text in _UNSUPPORTED.items():
        if getattr(args, name, None):
            return _error(command, f"{text} is not available with --engine spark")
    if not args.paths:
        return _error(command, "give at least one PATH (or --demo)")
    try:
        job = _job(args)
        gates = fail_on(getattr(args, "fail_on", None))
    except ValueError as exc:
        return _error(command, str(exc))
    import importlib.util
    if importlib.util.find_spec("pyspark") is None:
        return _error(command, "--engine spark needs pyspark: pip install 'turnscope[spark]'")
    from explorer.spark import engine
    try:
        spark = engine.session(args.master)
    except Exception as exc:   # noqa: BLE001 - no Java, no master: said, not a trace
        return _error(command, f"could not start Spark (Java 17 is needed: Debian's "
                               f"openjdk-17-jre-headless): {type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:300] if str(exc) else ''}")
    results, job, errors, not_logs = engine.compute(spark, args.paths, job, args.partitions)
    return report(args, results, job, errors, not_logs, gates)


def report(args: argparse.Namespace, results: list[dict], job, errors: list, not_logs: list,
           gates: list[tuple[str, int]] = ()) -> int:
    """Print the command's figures from the tasks' results (explorer.spark.engine.compute)
    as the DuckDB engine prints them; the exit status."""
    from explorer.spark import totals
    command = args.command
    # the figures in the order asked (a job may compute several: explorer.spark.partition)
    results = [{**r, **r["orders"][Order(args.order).value]} for r in results]
    failed_files, failed = totals.failures(results, job)
    errors = errors + failed_files
    if not results and errors:
        for exc in errors:
            messages.error(command, exc)
        return 2
    files = totals.files(results, failed)
    rejected = sum(f["rejected"] for f in files)
    if command == "audit":
        status = _audit(args, results, files, errors, not_logs, gates)
    elif command == "sweep":
        status = _sweep(args, results, job)
    else:
        status = _validate(args, results)
    for exc in errors:
        messages.error(command, exc)
    if rejected:
        messages.rejected_warning(command, rejected, totals.rejected_lines(results, 5)
                                  if command == "audit" else None)
    if errors or (rejected and getattr(args, "strict", False)):
        return 2
    return status


def _job(args):
    from explorer.compaction import Strategy
    from explorer.spark.partition import Job
    costs = checked(CostSettings(args.cjk_ratio, args.other_ratio, args.tokenizer))
    base = {"orders": (Order(args.order).value,), "costs": costs, "limits": limits.current()}
    if args.command == "audit":
        return Job(("audit",), (), **base)
    if args.command == "sweep":
        strategies = tuple(s for s in args.strategies.split(",") if s)
        budgets = tuple(int(b) for b in args.budgets.split(",") if b)
        for s in strategies:
            Strategy.parse(s)
        if any(b < 1 for b in budgets):
            raise ValueError("budgets are positive numbers of tokens")
        providers = parse_providers(args.provider) if args.provider is not None else ()
        return Job(("sweep",), (), **base, settings=_settings(args), strategies=strategies,
                   budgets=budgets, providers=tuple(providers))
    if args.strategy is not None:
        Strategy.parse(args.strategy)
        if args.budget < 1:
            raise ValueError("the budget is a positive number of tokens")
    return Job(("validate",), (), **base, settings=_settings(args),
               providers=tuple(parse_providers(args.provider)), strategy=args.strategy,
               budget=args.budget)


def _audit(args, results, files, errors, not_logs, gates) -> int:
    from explorer.spark import totals
    counts = totals.audit_counts(results)
    if args.json:
        print(json.dumps(counts_document(counts, files, Order(args.order), errors,
                                         totals.usage(results), not_logs)))
    else:
        _print_counts(counts, files, Order(args.order), False, errors, totals.usage(results),
                      not_logs)
    passed = [(name, counts[name], n) for name, n in gates if counts[name] > n]
    for name, count, n in passed:
        messages.error("audit", f"--fail-on: {name} is {count}, more than {n}")
    return 1 if passed else 0


def _sweep(args, results, job) -> int:
    from explorer.spark import totals
    more = figure_names(job.providers) if job.providers else ()
    rows = totals.sweep_rows(results, job, tuple(more))
    columns = (*FIGURES, *more)
    _write_rows(args, rows, ("strategy", "budget", *columns),
                lambda: _print_table(rows, list(job.budgets), columns))
    return 0


def _validate(args, results) -> int:
    from explorer.spark import totals
    out = sys.stdout
    rejected = False
    for s in totals.verdicts(results):
        for provider, vs in s["verdicts"]:
            rejected |= bool(vs)
            if args.json:
                out.write(json.dumps({"session_id": s["session_id"], "provider": provider,
                                      "accepted": not vs, "violations": vs},
                                     ensure_ascii=False) + "\n")
            else:
                print_verdict(out, s["session_id"], provider,
                              [(v["rule"], v["text"], v["events"]) for v in vs])
    return 1 if rejected else 0


def _error(command: str, message: str) -> int:
    messages.error(command, message)
    return 2
