"""Tests of the synthetic corpus generator: shape, faults, formats and determinism."""

from __future__ import annotations

import gzip
import json
import math
import re

import polars as pl
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from explorer.cli.generate import T0_MS, generate, generate_table

BOUNDS = {"USER": (10, 300), "CALL": (20, 200), "RESULT": (200, 3000), "ASSISTANT": (50, 800)}
FAULTY = dict(
    sessions=20, turns=5, p_result=0.8, p_lost_call=0.1, p_retry=0.1, ts_align=0.3, groups=3
)
EXTENSIONS = (".parquet", ".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz", ".csv")
CJK_RANGES = (
    (0x3000, 0x303F), (0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF),
)  # fmt: skip


def frame(**options) -> pl.DataFrame:
    return pl.from_arrow(generate_table(**options))


def within_session(expr: pl.Expr, key: str = "session_id") -> pl.Expr:
    """`expr` evaluated per session, rows in file order."""
    return expr.over(key)


def is_cjk(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in CJK_RANGES)


def token_estimate(text: str) -> int:
    """FORMAT.md: floor(cjk_chars / 1.5 + other_chars / 4.0 + 0.5)."""
    cjk = sum(map(is_cjk, text))
    return math.floor(cjk / 1.5 + (len(text) - cjk) / 4.0 + 0.5)


# --- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("extension", EXTENSIONS)
def test_same_arguments_give_identical_bytes(tmp_path, extension, text):
    first, second, other = (tmp_path / f"{name}{extension}" for name in ("a", "b", "c"))
    assert generate(first, text=text, **FAULTY) == generate(second, text=text, **FAULTY)
    assert first.read_bytes() == second.read_bytes()
    generate(other, text=text, seed=2, **FAULTY)
    assert other.read_bytes() != first.read_bytes()


def test_gzip_header_carries_no_time_and_no_name(tmp_path):
    path = tmp_path / "corpus.jsonl.gz"
    generate(path, sessions=2, turns=2)
    header = path.read_bytes()[:10]
    assert header[3] == 0  # FLG: no FNAME, FEXTRA or FCOMMENT
    assert header[4:8] == bytes(4)  # MTIME


def read_json_lines(path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as stream:
        return stream.read().split("\n")


@pytest.mark.parametrize("extension", [".jsonl", ".ndjson.gz"])
@pytest.mark.parametrize("text", [False, True])
def test_json_lines_are_compact_objects_without_nulls(tmp_path, extension, text):
    path = tmp_path / f"corpus{extension}"
    table = generate_table(text=text, **FAULTY)
    assert generate(path, text=text, **FAULTY) == table.num_rows
    lines = read_json_lines(path)
    assert lines[-1] == ""  # every line, the last included, ends with "\n"
    records = [{k: v for k, v in row.items() if v is not None} for row in table.to_pylist()]
    expected = [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records]
    assert lines[:-1] == expected


def test_parquet_holds_the_table_with_its_types(tmp_path):
    path = tmp_path / "corpus.parquet"
    generate(path, **FAULTY)
    stored = pq.read_table(path)
    assert stored.equals(generate_table(**FAULTY))
    assert [(f.name, str(f.type)) for f in stored.schema] == [
        ("session_id", "string"), ("seq", "int64"), ("ts", "int64"), ("kind", "string"),
        ("call_id", "string"), ("tool", "string"), ("event_id", "string"),
        ("chars", "int32"), ("cjk", "bool"), ("user_id", "string"), ("turn", "int32"),
    ]  # fmt: skip


def test_csv_has_a_header_and_empty_fields_for_nulls(tmp_path):
    path = tmp_path / "corpus.csv"
    table = generate_table(**FAULTY)
    generate(path, **FAULTY)
    header, first_user = path.read_text(encoding="utf-8").split("\n")[:2]
    assert header.replace('"', "").split(",") == table.column_names
    assert ",," in first_user  # USER rows have no call_id and no tool
    options = pa_csv.ConvertOptions(column_types=table.schema, strings_can_be_null=True)
    assert pa_csv.read_csv(path, convert_options=options).equals(table)


@pytest.mark.parametrize("name", ["corpus.txt", "corpus.csv.gz", "corpus.json", "corpus"])
def test_unknown_extension_is_rejected_before_writing(tmp_path, name):
    path = tmp_path / name
    suffix = "".join(path.suffixes) or "(none)"
    with pytest.raises(ValueError, match=re.escape(repr(suffix))):
        generate(path, sessions=1, turns=1)
    assert not path.exists()


@pytest.mark.parametrize(
    "argument, value",
    [
        ("sessions", 0), ("turns", 0), ("max_calls", -1), ("groups", -1), ("id_space", -1),
        ("sessions", 2.5), ("turns", True), ("p_result", 1.5), ("p_lost_call", -0.1),
        ("p_retry", 2), ("ts_align", float("nan")),
    ],
)  # fmt: skip
def test_invalid_arguments_name_the_parameter(argument, value):
    with pytest.raises(ValueError, match=argument):
        generate_table(**{argument: value})


# --- the clean stream --------------------------------------------------------------------


def test_default_columns():
    assert generate_table(sessions=2, turns=2).column_names == [
        "session_id", "seq", "ts", "kind", "call_id", "tool", "event_id", "chars", "cjk",
    ]  # fmt: skip


def test_every_session_is_turns_of_user_calls_results_assistant():
    df = frame(sessions=50, turns=12, seed=4)
    letters = {"USER": "U", "CALL": "C", "RESULT": "R", "ASSISTANT": "A"}
    shapes = df.group_by("session_id").agg(pl.col("kind").replace_strict(letters).str.join(""))
    assert shapes.height == 50
    for shape in shapes["kind"]:
        assert re.fullmatch(r"(U(CR){0,4}A){12}", shape), shape


def test_turn_shape_statistics():
    df = frame(sessions=300, turns=20, max_calls=4, seed=5)
    per_turn = (
        df.with_columns(turn=within_session(pl.col("kind").eq("USER").cum_sum()))
        .group_by("session_id", "turn")
        .agg(calls=pl.col("kind").eq("CALL").sum())
    )
    assert per_turn.height == 300 * 20
    assert per_turn["calls"].max() <= 4
    # 10 % of turns without tools, the rest uniform over 0..4: 0.1 + 0.9 / 5 have no call.
    assert per_turn["calls"].eq(0).mean() == pytest.approx(0.28, abs=0.03)
    assert df.height / (300 * 20) == pytest.approx(1 + 0.9 * 2 * 2 + 1, rel=0.03)


def test_each_call_is_followed_by_its_result():
    df = frame(sessions=40, turns=10, seed=6).with_columns(
        next_kind=within_session(pl.col("kind").shift(-1)),
        next_call=within_session(pl.col("call_id").shift(-1)),
        next_tool=within_session(pl.col("tool").shift(-1)),
        previous_kind=within_session(pl.col("kind").shift(1)),
        previous_call=within_session(pl.col("call_id").shift(1)),
    )
    calls = df.filter(pl.col("kind") == "CALL")
    results = df.filter(pl.col("kind") == "RESULT")
    assert calls.height == results.height > 0
    assert (calls["next_kind"] == "RESULT").all()
    assert (calls["next_call"] == calls["call_id"]).all()
    assert (calls["next_tool"] == calls["tool"]).all()
    assert (results["previous_kind"] == "CALL").all()
    assert (results["previous_call"] == results["call_id"]).all()
    assert df.filter(pl.col("kind").is_in(["USER", "ASSISTANT"]))["call_id"].is_null().all()


def test_unanswered_calls_dangle_and_no_result_lacks_its_call():
    df = frame(sessions=60, turns=10, p_result=0.5, seed=7).with_columns(
        previous_call=within_session(pl.col("call_id").shift(1))
    )
    calls = df.filter(pl.col("kind") == "CALL")
    results = df.filter(pl.col("kind") == "RESULT")
    assert results.height / calls.height == pytest.approx(0.5, abs=0.05)
    assert (results["previous_call"] == results["call_id"]).all()


def test_lengths_stay_within_bounds():
    df = frame(sessions=100, turns=10, seed=8)
    for kind, (low, high) in BOUNDS.items():
        chars = df.filter(pl.col("kind") == kind)["chars"]
        assert low <= chars.min() and chars.max() <= high, kind


def test_ids_and_names():
    df = frame(sessions=30, turns=6, seed=9)
    assert set(df["session_id"]) == {f"s{i:06d}" for i in range(30)}
    numbers = df["event_id"].str.strip_prefix("evt-").cast(pl.Int64)
    position = df.with_columns(n=within_session(pl.int_range(1, pl.len() + 1)))["n"]
    assert (numbers == position).all()
    calls = df.filter(pl.col("kind") == "CALL")
    expected = calls.with_columns(
        m=within_session(pl.int_range(1, pl.len() + 1)),
        digits=pl.col("session_id").str.strip_prefix("s"),
    ).select(pl.format("call_{}_{}", "digits", "m"))
    assert calls["call_id"].to_list() == expected.to_series().to_list()
    assert calls["tool"].is_in(["read_file", "grep_files", "bash", "edit_file", "web_search",
                                "list_files"]).all()  # fmt: skip


def test_seq_counts_rows_and_time_never_goes_back():
    df = frame(sessions=200, turns=10, seed=10)
    assert df["seq"].to_list() == list(range(1, df.height + 1))
    assert (df["ts"].diff().drop_nulls() >= 0).all()
    assert df["ts"].min() >= T0_MS
    ties = df.with_columns(previous=pl.col("session_id").shift(1)).filter(
        pl.col("ts").diff() == 0
    )
    assert ties.height > 0 and (ties["session_id"] > ties["previous"]).all()


def test_sessions_run_concurrently():
    df = frame(sessions=200, turns=10, seed=11)
    spans = df.group_by("session_id").agg(first=pl.col("ts").min(), last=pl.col("ts").max())
    middle = df["ts"].median()
    active = spans.filter((pl.col("first") <= middle) & (pl.col("last") >= middle))
    assert active.height > 100
    switches = (df["session_id"] != df["session_id"].shift(1)).sum()
    assert switches > df.height / 2


def test_fast_tools_answer_within_fifteen_ms():
    df = frame(sessions=200, turns=10, seed=12)
    gaps = (
        df.with_columns(gap=within_session(pl.col("ts").diff()))
        .filter(pl.col("kind") == "RESULT")["gap"]
    )
    assert 1 <= gaps.min() and gaps.max() <= 3000
    assert (gaps <= 15).mean() == pytest.approx(0.3 + 0.7 * 11 / 2996, abs=0.04)


def test_about_half_the_sessions_are_cjk():
    sessions = frame(sessions=400, turns=1, seed=13).group_by("session_id").agg(
        pl.col("cjk").n_unique().alias("values"), pl.col("cjk").first()
    )
    assert (sessions["values"] == 1).all()
    assert sessions["cjk"].mean() == pytest.approx(0.5, abs=0.08)


def test_no_tool_calls_when_max_calls_is_zero():
    df = frame(sessions=10, turns=5, max_calls=0)
    assert set(df["kind"]) == {"USER", "ASSISTANT"}
    assert df["call_id"].is_null().all() and df["tool"].is_null().all()


def test_seeds_change_the_corpus():
    assert not generate_table(seed=1).equals(generate_table(seed=2))


# --- faults ------------------------------------------------------------------------------


def test_lost_calls_leave_orphan_results_in_the_same_corpus():
    clean = frame(sessions=80, turns=10, seed=14)
    lossy = frame(sessions=80, turns=10, seed=14, p_lost_call=0.3)
    calls = clean.filter(pl.col("kind") == "CALL")
    kept = lossy.filter(pl.col("kind") == "CALL")
    assert kept.height / calls.height == pytest.approx(0.7, abs=0.05)
    results = lossy.filter(pl.col("kind") == "RESULT")
    orphans = results.join(kept, on=["session_id", "call_id"], how="anti")
    assert orphans.height == calls.height - kept.height  # every call is answered (p_result=1)
    non_calls = pl.col("kind") != "CALL"
    assert lossy.filter(non_calls).drop("seq").equals(clean.filter(non_calls).drop("seq"))


def test_retried_rows_are_copied_right_after_the_original():
    df = frame(sessions=80, turns=10, seed=15, p_retry=0.2)
    content = ["kind", "call_id", "tool", "chars", "cjk"]
    copies = df.filter(pl.struct("session_id", "event_id").is_duplicated())
    pairs = copies.group_by("session_id", "event_id").agg(
        pl.len(),
        pl.col("seq").max() - pl.col("seq").min(),
        pl.col("ts").last() - pl.col("ts").first(),
        *(pl.col(c).n_unique().alias(f"{c}_values") for c in content),
    )
    assert pairs.height / (df.height - pairs.height) == pytest.approx(0.2, abs=0.03)
    assert (pairs["len"] == 2).all() and (pairs["seq"] == 1).all()
    assert pairs["ts"].is_between(1, 20).all()
    for column in content:
        assert (pairs[f"{column}_values"] == 1).all(), column


def test_a_coarse_clock_creates_ties_and_regressions():
    clean = frame(sessions=100, turns=10, seed=16)
    coarse = frame(sessions=100, turns=10, seed=16, ts_align=0.5)
    assert coarse.drop("ts").equals(clean.drop("ts"))
    floored = clean["ts"] - clean["ts"] % 10
    assert ((coarse["ts"] == clean["ts"]) | (coarse["ts"] == floored)).all()
    assert (coarse["ts"] % 10 == 0).mean() == pytest.approx(0.5 + 0.5 * 0.1, abs=0.03)
    step = within_session(pl.col("ts").diff())
    steps = coarse.select(step.alias("step"))["step"].drop_nulls()
    clean_steps = clean.select(step.alias("step"))["step"].drop_nulls()
    assert (steps < 0).sum() > 0 and (clean_steps < 0).sum() == 0
    assert (steps == 0).sum() > (clean_steps == 0).sum()


def test_groups_collapse_sessions_under_shared_keys():
    df = frame(sessions=40, turns=6, groups=5, seed=17)
    assert df.columns[-2:] == ["user_id", "turn"]
    assert df["session_id"].str.contains(r"^k000[0-4]$").all()
    assert df.group_by("user_id").agg(pl.col("session_id").n_unique())["session_id"].max() == 1
    users_per_key = df.group_by("session_id").agg(pl.col("user_id").n_unique())["user_id"]
    assert users_per_key.max() > 1
    derived = within_session(pl.col("kind").eq("USER").cum_sum(), "user_id").cast(pl.Int32)
    assert (df["turn"] == df.select(derived.alias("t"))["t"]).all()
    assert df["turn"].max() == 6
    assert df.select(pl.struct("session_id", "event_id").is_duplicated().any()).item()


def test_a_small_id_space_repeats_call_ids():
    df = frame(sessions=30, turns=8, id_space=10, seed=18)
    ids = df.filter(pl.col("kind") == "CALL")["call_id"]
    assert set(ids) <= {f"call_{k}" for k in range(10)}
    per_session = df.filter(pl.col("kind") == "CALL").group_by("session_id").agg(
        pl.len(), pl.col("call_id").n_unique()
    )
    assert (per_session["call_id"] < per_session["len"]).any()


# --- text --------------------------------------------------------------------------------


def test_text_has_the_drawn_length_and_the_session_script():
    options = dict(sessions=40, turns=5, seed=19, p_retry=0.1, groups=4)
    measured = frame(**options)
    texts = frame(text=True, **options)
    assert "chars" not in texts.columns and "cjk" not in texts.columns
    assert texts.drop("text").equals(measured.drop("chars", "cjk"))
    assert measured["cjk"].any() and not measured["cjk"].all()
    for text, chars, cjk in zip(texts["text"], measured["chars"], measured["cjk"]):
        assert len(text) == chars
        expected_tokens = math.floor(chars / (1.5 if cjk else 4.0) + 0.5)
        assert token_estimate(text) == expected_tokens
        if cjk:
            assert all(0x4E00 <= ord(c) <= 0x9FFF or 0x3000 <= ord(c) <= 0x303F for c in text)
        else:
            assert re.fullmatch(r"[a-z][a-z. ]*", text), text
    copies = texts.filter(pl.struct("user_id", "event_id").is_duplicated())
    assert copies.height > 0
    assert copies.group_by("user_id", "event_id").agg(pl.col("text").n_unique())["text"].max() == 1
