"""The Spark engine's driver: start (or join) Spark, read the inputs, partition their rows by
session, run :func:`explorer.spark.partition.run` in every task, and collect the figures.

The partition key is the storage key as written (``session_id``, FORMAT.md): every figure
is a sum over sessions, or a maximum (explorer.spark.totals says why for each), so all the
rows of a session, from every file, must meet in one task; nothing else needs to.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from explorer.spark import inputs
from explorer.spark.partition import KEY, Input, Job, normalized, run

#: Rows a task holds at most, about: its in-memory store stays small (a few hundred MB).
ROWS_PER_TASK = 400_000


def session(master: str | None = None):
    """The SparkSession (``master``: a URL, else ``local[*]`` or what spark-submit set). Its
    Python workers run this interpreter, with this Turnscope first on their path; nothing is
    downloaded (no spark.jars.packages: what ``s3a://`` needs is Spark's own configuration)."""
    # The JVM and the Python workers it starts take these from the environment when the
    # session starts; set for that moment only (a PYTHONPATH left set would put this
    # checkout first in every later child process: a venv's pip took it as installed).
    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON",
                                              "PYTHONPATH")}
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    if root not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, path) if p)
    try:
        from pyspark.sql import SparkSession
        builder = (SparkSession.builder.appName("turnscope")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.session.timeZone", "UTC")
                   .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
                   .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable))
        if master:
            builder = builder.master(master)
        elif "spark.master" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
            builder = builder.master("local[*]")
        spark = builder.getOrCreate()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def compute(spark, paths: list[str], job: Job, partitions: int | None = None):
    """Every task's figures (a list of :func:`explorer.spark.partition.run` results), the
    job as run (its inputs filled in), the inputs that failed and those not logs."""
    files, errors, not_logs = inputs.list_inputs(spark, paths)
    if not files:
        return [], job, errors, not_logs
    n = partitions or _partitions(spark, files)
    # the shuffles before ours (lines numbered per file, seq_given) need no more tasks
    spark.conf.set("spark.sql.shuffle.partitions", str(n))
    df = inputs.rows(spark, files)
    given = inputs.seq_given(spark, df)
    job = replace(job, inputs=tuple(
        Input(path, uri, reader, given.get(normalized(uri), False))
        for path, uri, reader in files))
    payloads = (df.repartition(n, KEY)
                .mapInArrow(_task(job), "payload string")
                .collect())
    return [json.loads(row.payload) for row in payloads], job, errors, not_logs


def _partitions(spark, files) -> int:
    """Enough tasks for every core, and for about ROWS_PER_TASK rows each (from the local
    files' sizes, ~100 bytes a row of JSON Lines, ~10 of Parquet)."""
    cores = spark.sparkContext.defaultParallelism
    rows = 0
    for path, _, reader in files:
        try:
            rows += Path(path).stat().st_size // (10 if reader == "canonical-parquet" else 100)
        except OSError:
            rows += ROWS_PER_TASK
    return max(cores, -(-rows // ROWS_PER_TASK))


def _task(job: Job):
    """The function each task runs on its Arrow batches (pickled with the job)."""
    def task(batches):
        import pyarrow as pa
        batches = list(batches)
        if not batches or not sum(b.num_rows for b in batches):
            return
        result = run(pa.Table.from_batches(batches), job)
        yield pa.RecordBatch.from_pydict({"payload": [json.dumps(result)]})
    return task
