"""``--engine spark`` (explorer.spark, issue 21): the figures of audit, sweep and validate on
Apache Spark in local mode equal the DuckDB engine's, byte for byte as printed, in every
order of FORMAT.md, on generated corpora and the demo.

One SparkSession for the module (local[2]; the JVM's start is the slow part); each order is
one Spark computation of all three commands' figures (explorer.spark.partition.Job), printed
by the command line's own code, and one command runs end to end through ``main``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import spark_engine
from explorer.cli.main import build_parser, main
from explorer.compaction.sweep import VECTORIZED
from explorer.providers import parse_providers
from explorer.spark import engine
from explorer.spark.partition import Job

ORDERS = ("seq", "ts", "ts-unstable")
STRATEGIES = (*VECTORIZED, "spring-events:20", "agentscope:50:20", "memory-window:20:2.0",
              "recorded")
BUDGETS = "400,1600"


@pytest.fixture(scope="module")
def spark():
    before = {k: os.environ.get(k) for k in ("PYTHONPATH", "PYSPARK_PYTHON")}
    session = engine.session("local[2]")
    # the workers' path is set for the session's start only: a PYTHONPATH left holding the
    # checkout made a later fresh venv's pip take turnscope as already installed
    assert {k: os.environ.get(k) for k in before} == before
    yield session
    session.stop()


def _messy(path: Path, source: Path) -> None:
    """A JSON Lines file with what ingest rejects and skips: a blank and a white line, a line
    of broken JSON, a row without session_id, one without seq among rows with it, an unknown
    kind, a row written twice, CRLF line ends."""
    out = []
    for i, line in enumerate(source.read_text().splitlines()[:150]):
        d = json.loads(line)
        if i == 5:
            out += ["", "   "]
        if i == 17:
            out.append('{"session_id": "s000001", "kind": "USER", broken')
        if i == 23:
            d.pop("session_id")
        if i == 29:
            d.pop("seq")
        if i == 31:
            d["kind"] = "NOPE"
        out.append(json.dumps(d))
        if i == 40:
            out.append(json.dumps(d))
    path.write_text("\r\n".join(out) + "\r\n")


def _unnumbered(path: Path, source: Path) -> None:
    """A JSON Lines file without seq (assigned in file order), with a BOM and blank lines."""
    rows = [json.dumps({k: v for k, v in json.loads(line).items() if k != "seq"})
            for line in source.read_text().splitlines()[:120]]
    rows[3:3] = ["", " \t "]
    path.write_text("\ufeff" + "\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[str]:
    """Generated corpora (clean, dangling, clock-perturbed, key-collapsed; JSON Lines and
    Parquet, one in a folder) and hand-made rejections. The generator names its sessions
    alike in every file: sessions span files, so file order breaks ties."""
    root = tmp_path_factory.mktemp("spark")
    shapes = {"clean.jsonl": [],
              "dangling.parquet": ["--p-result", "0.8", "--p-lost-call", "0.05",
                                   "--p-retry", "0.05", "--seed", "2"],
              "clock.jsonl": ["--ts-align", "0.6", "--seed", "3"],
              "folder/collapsed.parquet": ["--groups", "5", "--id-space", "40", "--seed", "4"]}
    (root / "folder").mkdir()
    for name, flags in shapes.items():
        assert main(["generate", "--sessions", "15", "--turns", "5", *flags,
                     str(root / name)]) == 0
    _messy(root / "messy.jsonl", root / "clean.jsonl")
    _unnumbered(root / "unnumbered.jsonl", root / "clock.jsonl")
    return [str(root / "clean.jsonl"), str(root / "dangling.parquet"), str(root / "clock.jsonl"),
            str(root / "folder"), str(root / "messy.jsonl"), str(root / "unnumbered.jsonl")]


def _duckdb(capsys, argv: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = main(argv)
    return status, capsys.readouterr().out


def _commands(paths: list[str], order: str) -> dict[str, list[str]]:
    return {"audit": ["audit", *paths, "--json", "--order", order],
            "sweep": ["sweep", *paths, "--json", "--order", order, "--strategies",
                      ",".join(STRATEGIES), "--budgets", BUDGETS, "--provider", "all"],
            "validate": ["validate", *paths, "--json", "--order", order]}


@pytest.fixture(scope="module")
def computed(spark, corpus):
    """One Spark computation of every command's figures in every order."""
    job = Job(("audit", "sweep", "validate"), (), orders=ORDERS, strategies=STRATEGIES,
              budgets=tuple(int(b) for b in BUDGETS.split(",")),
              providers=tuple(parse_providers("all")))
    return engine.compute(spark, corpus, job, partitions=3)


@pytest.mark.parametrize("order", ORDERS)
def test_figures_equal_the_duckdb_engines(computed, corpus, capsys, order):
    results, job, errors, not_logs = computed
    assert len(results) == 3   # the sessions were spread over the tasks
    assert not errors and not not_logs
    for name, argv in _commands(corpus, order).items():
        expected = _duckdb(capsys, argv)
        status = spark_engine.report(build_parser().parse_args(argv), results, job, errors,
                                     not_logs)
        got = (status, capsys.readouterr().out)
        assert got == expected, name
        if name == "audit":
            doc = json.loads(got[1])
            # the corpora hold what each figure counts (else equality proves little)
            for key in ("duplicates", "event_id_conflicts", "shared_keys", "orphan_results",
                        "dangling_calls", "mispair", "duplicate_call_ids", "clock_regressions",
                        "ts_ties", "collapsed_keys", "turn_collisions", "rejected"):
                assert doc[key] > 0, key
            assert doc["tie_inversions"] > 0 if order == "ts-unstable" else True
        if name == "sweep":
            rows = json.loads(got[1])
            assert max(r["mixed_windows"] for r in rows) > 0
            assert max(r["rejected_anthropic"] for r in rows) > 0


def test_the_demo_end_to_end(spark, corpus, capsys):
    """The command line itself, on the demo (and the rejections): audit's text and its
    warnings on stderr."""
    argv = ["audit", "--demo", corpus[-2], "--order", "ts"]
    capsys.readouterr()
    expected = (main(argv), *capsys.readouterr())
    status = main([*argv, "--engine", "spark", "--master", "local[2]", "--partitions", "2"])
    assert (status, *capsys.readouterr()) == expected
    assert "4 input line(s) rejected" in expected[2]
    assert "3 file(s)" not in expected[1] and "4 file(s)" in expected[1]


def test_what_spark_does_not_do_is_said(capsys):
    assert main(["audit", "--demo", "--engine", "spark", "--db", "x.duckdb"]) == 2
    assert "--db" in capsys.readouterr().err


def test_pyspark_is_imported_only_for_the_spark_engine():
    code = ("import sys, explorer.cli.main, explorer.cli.spark_engine, explorer.spark.partition,"
            " explorer.spark.totals; assert 'pyspark' not in sys.modules, 'pyspark imported'")
    subprocess.run([sys.executable, "-c", code], check=True,
                   cwd=Path(__file__).resolve().parents[1])
