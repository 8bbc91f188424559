"""The ``turnscope`` command: headless subcommands, or the desktop window without one."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence

from explorer import log_setup
from explorer.cli import messages
from explorer.formats import limits
from explorer.model import TOKENIZERS, Order

SUBCOMMANDS = ("audit", "export", "generate", "lab", "repair", "replay", "report",
               "screenshot", "sweep", "validate", "view")
_DISPLAY_HELP = (
    "turnscope: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
    "  Run it under a virtual display:  xvfb-run -a {program} [PATH...]\n"
    "  or use the headless subcommands: {program} audit | sweep | view | generate (see --help)"
)


def _ratio_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cjk-ratio", type=float, default=1.5, help="CJK characters per token (1.5)")
    p.add_argument("--other-ratio", type=float, default=4.0, help="other characters per token (4.0)")
    p.add_argument("--tokenizer", choices=list(TOKENIZERS), default=None,
                   help="estimate with a real BPE tokenizer (o200k: o200k_base, cl100k: "
                        "cl100k_base) instead of the ratios; events given as chars keep them")


def _order_arg(p: argparse.ArgumentParser, default: str | None = "seq",
               default_text: str = "seq (default)") -> None:
    p.add_argument("--order", choices=[o.value for o in Order], default=default,
                   help=f"ordering mode (FORMAT.md): {default_text}, ts or ts-unstable")


def _verbose_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also log everything (DEBUG) to stderr; failures always go to the log file")


def _limit_args(p: argparse.ArgumentParser) -> None:
    """One flag per import limit (explorer.formats.limits); unset ones keep their default
    (in the window: its saved "Import limits…" setting)."""
    group = p.add_argument_group("import limits (past one, the line or file is rejected)")
    for name in limits.names():
        group.add_argument(limits.flag(name), type=_limit_value, default=None, metavar="N",
                           dest=f"limit_{name}", help=f"{limits.DESCRIPTIONS[name]} "
                           f"(default {limits.shown(name, getattr(limits.DEFAULTS, name))})")


def _limit_value(text: str) -> int:
    try:
        return limits.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _configure_limits(args: argparse.Namespace) -> None:
    given = {name: getattr(args, f"limit_{name}", None) for name in limits.names()}
    limits.configure(limits.DEFAULTS, {k: v for k, v in given.items() if v is not None})


def _version_arg(p: argparse.ArgumentParser) -> None:
    from explorer.version import version
    p.add_argument("-V", "--version", action="version", version=f"turnscope {version()}",
                   help="print the version and exit")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnscope",
        description="Inspect AI-agent session logs: turns, tool-call pairing, audits. "
                    "Without a subcommand, opens the desktop window (on the demo data when "
                    "no PATH is given).")
    _version_arg(parser)
    sub = parser.add_subparsers(
        dest="command", metavar="{audit,sweep,view,validate,replay,lab,export,repair,report,generate}")
    audit = sub.add_parser("audit", help="print the structural audits of AUDITS.md")
    audit.add_argument("paths", nargs="*", metavar="PATH", help="log files; --demo for the demo data")
    _order_arg(audit)
    audit.add_argument("--json", action="store_true", help="one JSON object of the counts")
    audit.add_argument("--findings", action="store_true", help="list every finding (JSON Lines with --json)")
    audit.add_argument("--db", metavar="PATH", help="DuckDB file to import into and audit")
    audit.add_argument("--strict", action="store_true", help="exit 2 when any line was rejected")
    audit.add_argument("--fail-on", metavar="RULE[:N],...", default=None,
                       help="exit 1 when an AUDITS.md count passes N (0 by default), e.g. "
                            "orphan_results,collapsed_keys:5")
    audit.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report (one "
                       "test case per session, failing with its findings)")
    _ratio_args(audit)
    _limit_args(audit)
    _verbose_arg(audit)
    sweep = sub.add_parser("sweep", help="compare compaction strategies over the corpus (STRATEGIES.md)")
    view = sub.add_parser("view", help="the active view of one session under a strategy")
    replay = sub.add_parser("replay", help="one session call by call under a trigger and a "
                            "strategy (REPLAY.md)")
    for p in (sweep, view, replay):
        p.add_argument("paths", nargs="*", metavar="PATH", help="log files; --demo for the demo data")
        _order_arg(p)
        p.add_argument("--db", metavar="PATH", help="DuckDB file to import into and read")
        _ratio_args(p)
        _limit_args(p)
        _verbose_arg(p)
    from explorer.cli.compaction import add_arguments
    add_arguments(sweep, view)
    export = sub.add_parser("export", help="write the logs out as ATIF, OTel GenAI JSON or JSON Lines")
    from explorer.cli.export import add_arguments as export_arguments
    export_arguments(export)
    _limit_args(export)
    _verbose_arg(export)
    repair = sub.add_parser("repair", help="write a repaired copy of one session, in the "
                            "source's own format")
    from explorer.cli.repair import add_arguments as repair_arguments
    repair_arguments(repair)
    _limit_args(repair)
    _verbose_arg(repair)
    report = sub.add_parser("report", help="write what was found as one HTML or Markdown file")
    from explorer.cli.report import add_arguments as report_arguments
    report_arguments(report)
    _order_arg(report)
    _limit_args(report)
    _verbose_arg(report)
    validate = sub.add_parser("validate", help="would each provider accept the sessions or a "
                              "strategy's views of them (PROVIDERS.md)")
    validate.add_argument("paths", nargs="*", metavar="PATH",
                          help="log files; --demo for the demo data")
    _order_arg(validate)
    validate.add_argument("--db", metavar="PATH", help="DuckDB file to import into and read")
    _ratio_args(validate)
    _limit_args(validate)
    _verbose_arg(validate)
    from explorer.cli.validate import add_arguments as validate_arguments
    validate_arguments(validate)
    from explorer.cli.spark_engine import add_arguments as engine_arguments
    for p in (audit, sweep, validate):
        engine_arguments(p)
    from explorer.cli import replay as replay_command
    from explorer.cli.compaction import add_settings_arguments
    replay_command.add_arguments(replay)
    add_settings_arguments(replay)
    from explorer.cli import lab as lab_command

    def _inputs(p):
        _order_arg(p)
        _ratio_args(p)
        _limit_args(p)
        _verbose_arg(p)
    lab = sub.add_parser("lab", help="the lab's experiments (LAB.md): trigger-gap, frames, "
                         "estimates")
    lab_command.add_arguments(lab, _inputs, _verbose_arg)
    _screenshot_args(sub.add_parser(
        "screenshot", help="render the window offscreen to a PNG (demo data without paths)"))
    gen = sub.add_parser("generate", help="write a synthetic corpus (JSONL, .jsonl.gz, Parquet or CSV)")
    gen.add_argument("out", metavar="OUT")
    for flag, kind, default, text in (
        ("--sessions", int, 200, "sessions"), ("--turns", int, 20, "turns per session"),
        ("--max-calls", int, 4, "tool calls per turn, at most"),
        ("--p-result", float, 1.0, "probability that a call gets its result"),
        ("--p-lost-call", float, 0.0, "share of CALL rows never written"),
        ("--p-retry", float, 0.0, "share of rows written twice (same event_id)"),
        ("--ts-align", float, 0.0, "share of timestamps floored to 10 ms"),
        ("--groups", int, 0, "store the sessions under this many keys (key collapse)"),
        ("--id-space", int, 0, "draw call ids from a pool of this size"),
        ("--seed", int, 1, "random seed"),
    ):
        gen.add_argument(flag, type=kind, default=default, help=f"{text} (default {default})")
    gen.add_argument("--text", action="store_true", help="write real-looking text instead of chars+cjk")
    gen.add_argument("--framed", action="store_true",
                     help="write frames (length, CRC-32, JSON record: the .tsframes format of "
                          "LAB.md) whatever the extension")
    _verbose_arg(gen)
    return parser


def _screenshot_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", metavar="OUT.png", help="the PNG file to write")
    p.add_argument("paths", nargs="*", metavar="PATH", help="log files (default: --demo)")
    p.add_argument("--db", metavar="PATH", help="DuckDB file to open or import into")
    p.add_argument("--session", metavar="ID", help="the session to select (default: the first "
                   "session with a finding)")
    from explorer.cli.compaction import strategy_help
    p.add_argument("--strategy", metavar="S", default="M1",
                   help=f"the previewed strategy (default M1); {strategy_help()}")
    p.add_argument("--budget", metavar="B", type=int, default=2_000,
                   help="the previewed budget in tokens (default 2000)")
    p.add_argument("--size", metavar="WxH", default="1600x1000", help="window size (1600x1000)")
    p.add_argument("--tab", choices=("session", "sweep"), default="session",
                   help="the tab shown; sweep runs the corpus sweep first")
    p.add_argument("--tokenizer", choices=list(TOKENIZERS), default=None,
                   help="estimate with this tokenizer instead of the ratios")
    _order_arg(p)
    _limit_args(p)
    _verbose_arg(p)


def _gui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="turnscope", description="Open the Turnscope window.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="log files (default: the demo data)")
    p.add_argument("--db", metavar="PATH", help="DuckDB file to open or import into")
    p.add_argument("--follow", metavar="PATH", help="follow a growing log (a file or a folder):"
                   " its new records are imported as they are written")
    _order_arg(p, None, "seq (default: the order used last)")
    _limit_args(p)
    _verbose_arg(p)
    _version_arg(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        return _closed_pipe()


def _closed_pipe() -> int:
    """The reader of our output went away (``audit --findings | head -1``): stop quietly, as
    Unix tools do. What stdout still buffers goes to devnull, so that flushing it at exit
    does not fail again (Python's advice on SIGPIPE)."""
    try:
        out = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):   # not a file (a test's capture)
        return 141
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, out)
    os.close(devnull)
    return 141   # 128 + SIGPIPE, the status of a tool the signal stopped


def _dispatch(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (argv[0] in SUBCOMMANDS or argv[0] in ("-h", "--help")):
        args = _parse(argv)
        args.paths = _restore_demo(getattr(args, "paths", []))
        log_setup.configure(verbose=args.verbose)
        _configure_limits(args)
        if args.command in ("audit", "sweep", "validate", "view", "export", "replay", "repair",
                            "report"):
            return _run_on_database(args)
        if args.command == "generate":
            return _run_generate(args)
        if args.command == "lab":
            if args.experiment == "estimates":
                return _run_on_database(args)
            from explorer.cli.lab import run_lab
            return run_lab(args)
        if args.command == "screenshot":
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
            try:
                from widgets.screenshot import run_screenshot
            except ImportError as exc:
                return _no_window(exc)
            return run_screenshot(args)
    args = _gui_parser().parse_args(_hide_demo(argv))
    log_setup.configure(verbose=args.verbose)
    _configure_limits(args)
    return _run_gui(_restore_demo(args.paths), args.db, args.order, args.follow)


def _parse(argv: list[str]) -> argparse.Namespace:
    """The subcommand's arguments; export's ``PATH... --to F OUT`` puts its paths before and
    after the options (argparse takes one run of positionals)."""
    parser = build_parser()
    if argv[0] not in ("export", "report"):
        return parser.parse_args(_hide_demo(argv))
    args, rest = parser.parse_known_args(_hide_demo(argv))
    if any(r.startswith("-") for r in rest):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    args.paths = list(args.paths) + rest
    return args


def _run_on_database(args: argparse.Namespace) -> int:
    """Run audit, sweep or view; a damaged, full or stopped database (at any step: opening,
    importing, reading) is said as such, naming it, with exit status 2 (explorer.store.damage)."""
    import duckdb

    from explorer.store.damage import database_problem
    if getattr(args, "engine", "duckdb") == "spark":   # explorer.spark: no database here
        from explorer.cli.spark_engine import run_spark
        return run_spark(args)
    try:
        if args.command == "audit":
            from explorer.cli.audit import run_audit
            return run_audit(args)
        if args.command == "export":
            from explorer.cli.export import run_export
            return run_export(args)
        if args.command == "validate":
            from explorer.cli.validate import run_validate
            return run_validate(args)
        if args.command == "repair":
            from explorer.cli.repair import run_repair
            return run_repair(args)
        if args.command == "report":
            from explorer.cli.report import run_report
            return run_report(args)
        from explorer.cli import compaction as compaction_command
        if args.command == "replay":
            from explorer.cli.replay import run_replay
            return run_replay(args)
        if args.command == "lab":
            from explorer.cli.lab import run_lab
            return run_lab(args)
        return (compaction_command.run_sweep if args.command == "sweep"
                else compaction_command.run_view)(args)
    except duckdb.Error as exc:
        message = database_problem(args.db, exc)
        if message is None:
            raise
        messages.error(args.command, message)
        return 2


# argparse would read "--demo" as an unknown option: carry it through as a path.
_DEMO_TOKEN = "\0demo"


def _hide_demo(argv: list[str]) -> list[str]:
    return [_DEMO_TOKEN if a == "--demo" else a for a in argv]


def _restore_demo(paths: list[str]) -> list[str]:
    from explorer.cli.demo import expand
    return expand(["--demo" if p == _DEMO_TOKEN else p for p in paths])


def _run_generate(args: argparse.Namespace) -> int:
    from explorer.cli.generate import generate
    try:
        rows = generate(
            args.out, sessions=args.sessions, turns=args.turns, max_calls=args.max_calls,
            p_result=args.p_result, p_lost_call=args.p_lost_call, p_retry=args.p_retry,
            ts_align=args.ts_align, groups=args.groups, id_space=args.id_space,
            text=args.text, seed=args.seed, framed=args.framed)
    except (ValueError, OSError) as exc:
        messages.error("generate", exc)
        return 2
    print(f"wrote {rows} rows to {args.out}", file=sys.stderr)
    return 0


def has_display() -> bool:
    """Whether Qt can open a window here (or was told to render offscreen)."""
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc", "eglfs", "linuxfb"):
        return True
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _run_gui(paths: list[str], db: str | None, order: str | None,
             follow: str | None = None) -> int:
    if not has_display():
        print(_DISPLAY_HELP.format(program=program()), file=sys.stderr)
        return 3
    if not paths and not db and not follow:
        from explorer.cli.demo import demo_paths
        paths = [str(p) for p in demo_paths()]
    try:
        from widgets.app import run
    except ImportError as exc:
        return _no_window(exc)
    return run(paths, db=db, order=Order(order) if order else None, follow=follow)


def program() -> str:
    """How the user started this command, to repeat in advice: ``turnscope`` when that is
    on PATH, else the path they typed (``.venv/bin/turnscope`` after the README's command),
    or ``python3 -m explorer``."""
    started = sys.argv[0] if sys.argv else ""
    if started.endswith("__main__.py"):
        return "python3 -m explorer"
    if os.sep not in started:
        return "turnscope"
    on_path = shutil.which("turnscope")
    try:
        same = bool(on_path) and os.path.samefile(on_path, started)
    except OSError:   # the path typed is gone, or was relative to another folder
        same = False
    return "turnscope" if same else started


def _no_window(exc: ImportError) -> int:
    """A window that cannot start for a missing system library: say which, exit 3."""
    from explorer.cli import system_libraries
    library = system_libraries.missing_library(exc)
    if library is None:
        raise exc
    print(system_libraries.message(library), file=sys.stderr)
    return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
