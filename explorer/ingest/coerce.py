"""SQL expressions that coerce each input column to its canonical type (FORMAT.md).

The expression depends on the column's type in the source (text from JSON and CSV,
native types from Parquet), so that native columns are taken as they are and text is
parsed by the macros in ``queries/create_macro_*.sql``. Names come from
:data:`explorer.model.COLUMN_TYPES` only.
"""

from __future__ import annotations

from explorer.model import COLUMN_TYPES

_SQL_TYPES = {"kind": "kind_t", "str": "VARCHAR", "int": "BIGINT", "bool": "BOOLEAN", "ts": "BIGINT"}
_INTEGER = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
            "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")
_FLOAT = ("FLOAT", "DOUBLE", "REAL")
# Empty text means "no value" for these (FORMAT.md: "" call_id is no id).
_EMPTY_IS_NULL = ("session_id", "call_id", "kind")


def _family(src_type: str) -> str:
    base = src_type.upper()
    if base in ("VARCHAR", "STRING", "TEXT", "JSON"):
        return "text"
    if base in _INTEGER:
        return "integer"
    if base in _FLOAT or base.startswith("DECIMAL"):
        return "float"
    if base == "BOOLEAN":
        return "bool"
    if base.startswith("TIMESTAMP") or base == "DATE":
        return "time"
    return "other"


def _typed(name: str, kind: str, col: str, family: str) -> str:
    if name == "kind":
        # The exact spelling casts straight to the enum; aliases and other cases go the long way.
        return (f"CASE WHEN TRY_CAST({col} AS kind_t) IS NOT NULL THEN TRY_CAST({col} AS kind_t) "
                f"ELSE CAST(kind_of(CAST({col} AS VARCHAR)) AS kind_t) END")
    if kind == "str":
        text = col if family == "text" else (
            f"CAST(to_json({col}) AS VARCHAR)" if name == "raw" else f"CAST({col} AS VARCHAR)")
        return f"NULLIF({text}, '')" if name in _EMPTY_IS_NULL else text
    table = {
        "int": {"text": f"txt_int({col})", "integer": f"TRY_CAST({col} AS BIGINT)",
                "float": f"num_int({col})", "bool": "NULL"},
        "bool": {"text": f"txt_bool({col})", "bool": col,
                 "integer": f"CASE {col} WHEN 1 THEN true WHEN 0 THEN false END"},
        "ts": {"text": f"txt_ts({col})", "integer": f"TRY_CAST({col} AS BIGINT)",
               "float": f"TRY_CAST(floor({col}) AS BIGINT)",
               "time": f"epoch_us(CAST({col} AS TIMESTAMPTZ)) // 1000"},
    }[kind]
    return table.get(family, "NULL")


def column_exprs(types: dict[str, str]) -> str:
    """``r_<name>`` (raw) and ``<name>`` (typed) for every canonical column.

    ``types`` maps the canonical columns present in the source to their DuckDB types;
    absent columns become NULL.
    """
    parts = []
    for name, kind in COLUMN_TYPES.items():
        if name not in types:
            sql_type = _SQL_TYPES["kind" if name == "kind" else kind]
            parts.append(f"NULL AS r_{name}, NULL::{sql_type} AS {name}")
            continue
        col = '"' + name + '"'
        parts.append(f"{col} AS r_{name}, {_typed(name, kind, col, _family(types[name]))} AS {name}")
    return ",\n        ".join(parts)
