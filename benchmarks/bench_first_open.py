"""Big databases in the window (issue 13, item 5): time and peak memory of each shape.

    python -m benchmarks.bench_first_open [--shape corpus|sessions|session|audit-again|all]

Each figure comes from a child process of its own (its ``ru_maxrss`` is the peak memory):

1. ``corpus``: the benchmark corpus (60,000 sessions x 50 turns, 16.8M events) opened in
   the window (offscreen) the first time (no audit table yet): seconds until the session
   list shows its rows; the steps the status bar named. Target <= 15 s and <= 2 GB.
2. ``sessions``: 1,000,000 one-event sessions, first open, then the list scrolled to the
   end. Target: the list in <= 1 GB.
3. ``session``: one session of about 3,000,000 events: first open, then the session's
   tree shown (its first step), then the rest (preview, plot, marks; then the first paint
   of the window, timed apart), then the replay strip's replay (it waits for the
   comparison of the strategies). Target: the tree in <= 3 s and <= 1 GB.
   ``session-again``: the same on the database audited already (the session's open on its
   own; the first open's peak is the audit table's build, ``BUILD_MEMORY``).
   ``session-steps``: the same session's load step by step in one child (no window, no
   session list): seconds and peak memory after each step.
   CPU seconds (``*_cpu_s``, every thread of the process, from its start) are printed
   beside the wall seconds: the machine is shared, its load average is printed too.
4. ``audit-again``: ``turnscope audit --db`` on the corpus's database a second time (its
   tables fresh): seconds (it reads the cached tables).

The inputs are made once with the project's own ``generate`` and ``audit --db`` and kept
under /tmp/turnscope-bigdb-bench, or the folder ``TURNSCOPE_BIGDB_BENCH`` names (the databases
opened are copies without audit tables).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb

#: Where the inputs are kept (``TURNSCOPE_BIGDB_BENCH`` names another folder).
CACHE = Path(os.environ.get("TURNSCOPE_BIGDB_BENCH", "/tmp/turnscope-bigdb-bench"))
PY = sys.executable
SHAPES = {"corpus": ("corpus-60000x50", ["--sessions", "60000", "--turns", "50"]),
          "session": ("session-3m", ["--sessions", "1", "--turns", "536000"]),
          "sessions": ("sessions-1m", None)}

#: A database of the same input a colleague imported already (copied, never written).
SEEDS = {"corpus": Path("/tmp/turnscope-sweep-bench/corpus-60000x50.duckdb")}


def _turnscope(*argv: str) -> None:
    subprocess.run([PY, "-m", "explorer", *argv], check=True, stdout=subprocess.DEVNULL)


def _audited(shape: str) -> Path:
    """The shape's database, imported and audited once with ``audit --db`` (cached)."""
    name, generate = SHAPES[shape]
    db = CACHE / f"{name}.duckdb"
    if db.exists():
        return db
    CACHE.mkdir(parents=True, exist_ok=True)
    seed = SEEDS.get(shape)
    if seed is not None and seed.exists():   # the same corpus, imported already
        shutil.copy(seed, db)
        _turnscope("audit", "--db", str(db))
        return db
    data = CACHE / f"{name}.parquet"
    if not data.exists():
        if generate is None:   # one event per session: written directly, canonical columns
            duckdb.sql(f"""COPY (SELECT printf('s%07d', i) AS session_id, 1::BIGINT AS seq,
                1767225600000 + i AS ts, 'USER' AS kind, 'evt-1' AS event_id,
                40::INTEGER AS chars, false AS cjk FROM range(1000000) t(i))
                TO '{data}' (FORMAT parquet)""")
        else:
            _turnscope("generate", *generate, str(data))
    _turnscope("audit", "--db", str(db), str(data))
    return db


def _first_open_copy(shape: str) -> Path:
    """A copy of the shape's database without its audit and findings tables."""
    src = _audited(shape)
    dst = CACHE / f"open-{src.name}"
    shutil.copy(src, dst)
    con = duckdb.connect(str(dst))
    for (table,) in con.sql("SELECT table_name FROM duckdb_tables() WHERE "
                            "table_name LIKE 'audit_%' OR table_name LIKE 'findings_%'").fetchall():
        con.execute(f"DROP TABLE {table}")   # names read from the catalog, ours
    con.execute("DELETE FROM meta WHERE key LIKE 'audit:%' OR key LIKE 'findings:%'")
    con.close()
    return dst


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _resident_mb() -> tuple[float, float]:
    """The process's resident memory now and its peak since the last call (Linux: the peak
    is reset through /proc/self/clear_refs, so each step shows what it used itself; where
    that cannot be read, both are the process's peak)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            status = dict(line.split(":", 1) for line in fh)
        now, high = (int(status[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return now, high
    except (OSError, KeyError, ValueError):
        peak = _peak_mb()
        return peak, peak


def _child_window(db: str, what: str) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from widgets.app import make_window

    start, cpu = time.perf_counter(), time.process_time()
    window = make_window([], db=db)
    said: list[str] = []
    window.sessions.audit_progressed.connect(lambda text, *_: said.append(text))
    window.show()
    while window.model.rowCount() == 0:
        QCoreApplication.processEvents()
        time.sleep(0.01)
        if time.perf_counter() - start > 600:
            raise SystemExit("no rows after 600 s")
    out = {"rows": window.model.rowCount(), "rows_s": time.perf_counter() - start,
           "rows_cpu_s": time.process_time() - cpu, "steps": said[-1] if said else "none"}
    if what == "scroll":
        window.table.scrollToBottom()
        QCoreApplication.processEvents()
        window.model.index(window.model.rowCount() - 1, 0).data()
        out["scrolled_s"] = time.perf_counter() - start
    out["list_peak_mb"] = _peak_mb()
    if what == "tree":
        session = window.model.session_id(0)
        shown: list[float] = []
        window.workspace.tree_shown.connect(lambda _id: shown.append(_peak_mb()))
        began = time.perf_counter()
        window.select_session(session)
        while not shown:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        out["tree_s"] = time.perf_counter() - began
        out["tree_cpu_s"] = time.process_time() - cpu
        out["tree_peak_mb"] = shown[0]
        while window.workspace.data is None or window.workspace.data.session_id != session:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        out["full_s"] = time.perf_counter() - began
        out["full_cpu_s"] = time.process_time() - cpu
        out["events"] = window.workspace.data.log.n
        full = time.perf_counter()
        window.grab()   # the first paint of everything shown (the tree, the plot, ...)
        out["paint_s"] = time.perf_counter() - full
        strip = window.workspace.replay   # replayed last (after the comparison, when big)
        while strip.replay is None or strip.replay.rlog.log.session_id != session:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        out["replay_s"] = time.perf_counter() - began
    window.jobs.wait()
    window.close()
    return out


def _child_steps(db: str) -> dict:
    """explorer.session.data.load_session's steps, then the tree model and its first turn."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from explorer.audits.marks import event_marks, rules_found
    from explorer.compaction import transforms
    from explorer.compaction.log import SessionLog
    from explorer.compaction.settings import CompactionSettings
    from explorer.model import CostSettings, Order
    from explorer.process_memory import return_freed_blocks
    from explorer.session import data as session_data
    from explorer.session.event_texts import EventTexts
    from explorer.store.db import Store, bounded_memory
    from explorer.tokens.session_events import session_events
    from widgets.session_loader import load_task
    from widgets.turn_tree_model import TurnTreeModel

    return_freed_blocks()   # as the window's application() does
    app = QApplication.instance() or QApplication([])
    store = Store(db)
    session = store.run("session_names")[0][0]
    steps: list[str] = []
    began = last = time.perf_counter()
    cpu = time.process_time()
    peak = 0.0   # the steps' peaks (a reset peak no longer says the process's own)

    def step(name: str) -> None:   # wall seconds, CPU seconds of every thread, memory
        nonlocal last, cpu, peak
        now, now_cpu = time.perf_counter(), time.process_time()
        resident, within = _resident_mb()
        peak = max(peak, within)
        steps.append(f"{name} {now - last:.1f} s (CPU {now_cpu - cpu:.1f} s), "
                     f"resident {resident:,.0f} MB (this step's peak {within:,.0f} MB), "
                     f"peak {peak:,.0f} MB")
        last, cpu = now, now_cpu

    step("start")
    first = session_data.load_tree(store, session, Order.SEQ, CostSettings())
    step(f"load_tree ({first.frame.estimated_size() / 2**20:,.0f} MB frame, "
         f"{len(first.tree.turn_no):,} turns)")
    model = TurnTreeModel()
    model.set_session(first.frame, first.marks, first.texts, first.tree)
    model.fetchMore(model.first_turn())
    step("the tree model, its first turn made")
    rest = load_task(store, session, Order.SEQ, CostSettings(), CompactionSettings(), None,
                     None, first=first)
    step(f"the rest after the tree (load_task: {len(rest.marks):,} marks)")
    model.complete_session(rest.frame, rest.marks, rest.texts, rest.tree)
    step("the tree completed in place")
    del first, rest
    model.clear()
    step("-- the former load, in one go:")
    with bounded_memory(store, session_data.SESSION_MEMORY):
        frame = session_events(store, session, Order.SEQ, CostSettings(), texts=False)
    step(f"events ({frame.height:,}, {frame.estimated_size() / 2**20:,.0f} MB)")
    log = transforms.for_log(store, SessionLog.from_frame(session, frame), CompactionSettings(),
                             CostSettings())
    step("SessionLog")
    usage = session_data._usage(store, session)
    step(f"usage ({usage.responses:,} responses)")
    rules = rules_found(store, session, Order.SEQ)
    marks = event_marks(frame, rules)
    step(f"marks ({len(rules)} rules run)")
    texts = EventTexts(store, frame["eid"].to_numpy())
    model = TurnTreeModel()
    model.set_session(frame, marks, texts)
    step("tree model")
    first = model.first_turn()
    model.fetchMore(first)
    shown = [model.index(r, 0, first).data() for r in range(min(50, model.rowCount(first)))]
    shown += [model.index(r, 0).data() for r in range(50)]
    step(f"first turn and 100 rows shown ({texts.reads} reads)")
    del app
    return {"steps": steps, "total_s": last - began, "events": log.n, "peak_mb": peak}


def _child(argv: list[str]) -> None:
    kind, db = argv[0], argv[1]
    if kind == "steps":
        out = _child_steps(db)
    elif kind == "audit":
        from explorer.cli.main import main
        start = time.perf_counter()
        saved, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115 (restored below)
        try:
            status = main(["audit", "--db", db, "--json"])
        finally:
            sys.stdout = saved
        out = {"status": status, "audit_s": time.perf_counter() - start}
    else:
        out = _child_window(db, kind)
    out["peak_mb"] = max(out.get("peak_mb", 0), _peak_mb())
    print(json.dumps(out))


def _measure(kind: str, db: Path) -> dict:
    done = subprocess.run([PY, "-m", "benchmarks.bench_first_open", "--child", kind, str(db)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def run(shape: str) -> None:
    if shape == "audit-again":
        db = _audited("corpus")
        _measure("audit", db)   # fresh for sure (a no-op when it already was)
        got = _measure("audit", db)
        print(f"audit --db, second run, {db.name}: {got['audit_s']:.1f} s, "
              f"peak {got['peak_mb']:,.0f} MB ({_load()})")
        return
    if shape == "session-steps":
        got = _measure("steps", _audited("session"))
        print(f"load of one {got['events']:,}-event session, step by step: "
              + "; ".join(got["steps"]) + f"; total {got['total_s']:.1f} s, peak "
              f"{got['peak_mb']:,.0f} MB ({_load()})")
        return
    what = {"corpus": "rows", "sessions": "scroll", "session": "tree",
            "session-again": "tree"}[shape]
    if shape == "session-again":   # audited already: the session's open on its own
        db = CACHE / "again-session-3m.duckdb"
        # a WAL left by a run killed before it checkpointed belongs to the old copy
        db.with_name(db.name + ".wal").unlink(missing_ok=True)
        shutil.copyfile(_audited("session"), db)
    else:
        db = _first_open_copy(shape)
    got = _measure(what, db)
    extra = "".join(f", {k} {got[k]:.1f} s" for k in ("rows_cpu_s", "scrolled_s", "tree_s",
                                                      "tree_cpu_s", "full_s", "full_cpu_s",
                                                      "paint_s", "replay_s") if k in got)
    print(f"{'open' if shape == 'session-again' else 'first open'} of {db.name}: {got['rows']:,} rows after {got['rows_s']:.1f} s{extra}, "
          f"peak {got['peak_mb']:,.0f} MB; last step said: {got['steps']!r} ({_load()})")
    for line in _against_targets(shape, got):
        print("  " + line)
    db.unlink()


def _against_targets(shape: str, got: dict) -> list[str]:
    """The figures of item 5 next to their targets (session list, tree shown, peak memory)."""
    def said(what: str, value: float, unit: str, target: float) -> str:
        verdict = "met" if value <= target else "NOT met"
        return f"{what}: {value:,.1f} {unit} (target <= {target:,.0f} {unit}: {verdict})"
    out = [said("time to the session list", got["rows_s"], "s", 15 if shape == "corpus" else 3)]
    if shape == "sessions":
        out.append(said("peak memory, the list shown and scrolled to its end", got["peak_mb"],
                        "MB", 1024))
    if shape in ("session", "session-again"):
        out += [said("time to the session's tree shown", got["tree_s"], "s", 3),
                said("peak memory when the tree is shown", got["tree_peak_mb"], "MB", 1024),
                said("time to the rest (preview, plot, marks) shown", got["full_s"], "s", 3),
                said("time to the replay shown too", got["replay_s"], "s", 3),
                said("peak memory, everything shown", got["peak_mb"], "MB", 1024)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="all",
                        choices=[*SHAPES, "session-steps", "session-again", "audit-again", "all"])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return 0
    for shape in (["corpus", "audit-again", "sessions", "session", "session-again"]
                  if args.shape == "all"
                  else [args.shape]):
        run(shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
