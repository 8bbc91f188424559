"""What Spark reads: the input files in the order given, and their rows as one DataFrame, each
row with its partition key, its file, its record number and line number in that file.

Local paths are expanded as on one machine (explorer.ingest.folders: a folder's logs sorted by
path; the reader of each file found by explorer.formats); a URI with a scheme (``s3a://``,
``hdfs://``, ``file:``), or a glob in one, is listed by Spark's Hadoop file system, sorted
by path, a file's reader told by its name (``.parquet``; else JSON Lines).
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

from explorer import formats
from explorer.formats import LogFileError
from explorer.ingest import folders
from explorer.spark.partition import JSONL, KEY, LINE, PARQUET, PATH, ROW, TEXT, normalized

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def list_inputs(spark, paths: list[str]) -> tuple[list[tuple[str, str, str]],
                                                   list[LogFileError], list[LogFileError]]:
    """(path shown, URI, reader) of each input file in order, the paths that failed, and
    the files found in folders that are not logs."""
    found, errors, not_logs = [], [], []
    for given in paths:
        if _SCHEME.match(given) and not re.match(r"^[A-Za-z]:[\\/]", given):
            try:
                found += [(uri, uri, _reader_by_name(uri)) for uri in _hadoop_files(spark, given)]
            except LogFileError as exc:
                errors.append(exc)
            continue
        local = sorted(glob.glob(given)) if glob.has_magic(given) else [given]
        files, skipped = folders.expand(Path(p) for p in local)
        not_logs += skipped
        for path in files:
            try:
                found.append((str(Path(path).absolute()), Path(path).absolute().as_uri(),
                              _reader(path)))
            except LogFileError as exc:
                errors.append(exc)
    return found, errors, not_logs


def _reader(path: Path) -> str:
    if not path.exists():
        raise LogFileError(path, "no such file")
    name = formats.detect(path).NAME
    if name not in (JSONL, PARQUET):
        raise LogFileError(path, f"the Spark engine reads canonical JSON Lines and Parquet "
                                 f"(FORMAT.md); this file is {name}")
    return name


def _reader_by_name(uri: str) -> str:
    return PARQUET if uri.lower().endswith(".parquet") else JSONL


def _hadoop_files(spark, given: str) -> list[str]:
    """The files a URI or glob names, through Spark's Hadoop file systems (recursively)."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(given)
    fs = path.getFileSystem(conf)
    statuses = fs.globStatus(path) or []
    out: list[str] = []
    for status in statuses:
        if status.isDirectory():
            it = fs.listFiles(status.getPath(), True)
            while it.hasNext():
                out.append(it.next().getPath().toString())
        else:
            out.append(status.getPath().toString())
    names = [u for u in out if not u.rsplit("/", 1)[-1].startswith(("_", "."))]
    if not names:
        raise LogFileError(given, "no such file")
    return sorted(names)


def rows(spark, files: list[tuple[str, str, str]]):
    """All rows of the files as one DataFrame: key, path, record number, line, JSON Lines
    text, and the Parquet files' own columns (their schemas merged)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    frames = []
    parquet = [uri for _, uri, reader in files if reader == PARQUET]
    jsonl = [uri for _, uri, reader in files if reader == JSONL]
    if parquet:
        df = spark.read.option("mergeSchema", "true").parquet(*parquet)
        key = (F.col("session_id").cast("string") if "session_id" in df.columns
               else F.lit(None).cast("string"))
        frames.append(df.select(
            "*", key.alias(KEY), F.col("_metadata.file_path").alias(PATH),
            F.col("_metadata.row_index").alias(ROW), (F.col("_metadata.row_index") + 1).alias(LINE),
            F.lit(None).cast("string").alias(TEXT)))
    if jsonl:
        lines = spark.read.option("lineSep", "\n").text(jsonl).select(
            F.col("value").alias(TEXT), F.col("_metadata.file_path").alias(PATH),
            F.col("_metadata.file_block_start").alias("__ts_block"),
            F.monotonically_increasing_id().alias("__ts_mono"))
        # line numbers by position in the file; a record's number counts the non-blank
        # lines before it (explorer.formats.canonical_jsonl stages those only)
        in_file = Window.partitionBy(PATH).orderBy("__ts_block", "__ts_mono")
        blank = F.col(TEXT).rlike(r"(?U)^\s*$")
        lines = (lines.withColumn(LINE, F.row_number().over(in_file).cast("long"))
                 .withColumn("__ts_blank", blank)
                 .withColumn(ROW, (F.sum(F.when(blank, 0).otherwise(1)).over(
                     in_file.rowsBetween(Window.unboundedPreceding, 0)) - 1).cast("long"))
                 .where(~F.col("__ts_blank"))
                 .withColumn(KEY, F.get_json_object(TEXT, "$.session_id"))
                 .drop("__ts_block", "__ts_mono", "__ts_blank"))
        frames.append(lines)
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame, allowMissingColumns=True)
    return out


def seq_given(spark, df) -> dict[str, bool]:
    """Whether any row of each file has seq (by normalized URI): the files without are
    assigned seq in file order (FORMAT.md)."""
    from pyspark.sql import functions as F
    parquet_seq = F.col("seq").isNotNull() if "seq" in df.columns else F.lit(False)
    has = F.when(F.col(TEXT).isNull(), parquet_seq).otherwise(
        F.get_json_object(TEXT, "$.seq").isNotNull())
    return {normalized(path): bool(given)
            for path, given in df.groupBy(PATH).agg(F.max(has).alias("g")).collect()}
