"""A real tokenizer's counts of the events' text, kept in the database (``tokens_<name>``).

FORMAT.md: "a real tokenizer, where one is installed, is another setting, never a
requirement". The BPE encodings come from ``bpe_openai``, which ships its rank files: nothing
is fetched at run time. An event with ``tokens`` of its own keeps them; one given as
``chars`` without text is still costed by the ratios. The counts are computed once per event
and encoding, in batches that can be cancelled (what is done stays done).
"""

from __future__ import annotations

import threading
from functools import cache

import pyarrow as pa

import queries
from explorer.jobs import Cancelled, ProgressHook, StopHook
from explorer.model import TOKENIZERS, CostSettings
from explorer.store.db import Db, data_version

#: Held around each write (the table's creation, an insert): a session's load and a
#: whole-corpus count may run at once.
_WRITING = threading.Lock()

#: Texts counted per batch (one insert each; the stop flag is read between batches).
BATCH_ROWS = 20_000



class TokenizerUnavailable(RuntimeError):
    """The tokenizer package is not installed (the ratios still work)."""


def unavailable_reason() -> str | None:
    """Why no real tokenizer can be used here, or None when one can."""
    try:
        import bpe_openai
    except ImportError as exc:
        return f"the real tokenizers need the bpe-openai package ({exc})"
    return None if bpe_openai else "bpe-openai is not usable"


@cache
def _encoding(name: str):
    reason = unavailable_reason()
    if reason:
        raise TokenizerUnavailable(reason)
    import bpe_openai
    return bpe_openai.get_encoding(TOKENIZERS[name])


def count(tokenizer: str, text: str) -> int:
    """The number of tokens of ``text`` (special-token text counted as ordinary text)."""
    return count_many(_encoding(tokenizer), [text])[0]


def count_many(encoding, texts: list[str]) -> list[int]:
    """The token count of each text. The package refuses one input of 1,000,000 characters
    or 200,000 tokens, so a long text is counted in pieces of at most :data:`PIECE_CHARS`
    characters (4 tokens a character at most), cut where the encodings' pre-tokenizer cuts
    anyway, so the pieces' counts add up to the whole's (see :func:`pieces`)."""
    owners: list[int] = []
    parts: list[str] = []
    for i, text in enumerate(texts):
        for part in pieces(text):
            owners.append(i)
            parts.append(part)
    counts = [0] * len(texts)
    for owner, ids in zip(owners, encoding.encode_ordinary_batch(parts, num_threads=2)):
        counts[owner] += len(ids)
    return counts


#: The longest piece a text is counted in.
PIECE_CHARS = 50_000


def pieces(text: str, limit: int | None = None) -> list[str]:
    """``text`` cut into pieces of at most ``limit`` characters. Each cut is, by preference,
    after a line break followed by an ASCII letter, else between an ASCII letter and a space
    followed by one: the o200k and cl100k pre-tokenizers split there too, so no token spans
    the cut. A stretch with neither (a base64 blob) is cut at the limit; such a cut can add a
    token."""
    limit = limit or PIECE_CHARS
    out = []
    start = 0
    while len(text) - start > limit:
        end = start + limit
        cut = _last_cut(text, start, end)
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


def _last_cut(text: str, start: int, end: int) -> int:
    """The last good cut in (start, end], or ``end``."""
    low = start + 1
    i = text.rfind("\n", low - 1, end - 1)
    while i >= low - 1:
        if _ascii_letter(text[i + 1]):
            return i + 1
        i = text.rfind("\n", low - 1, i)
    i = text.rfind(" ", low, end)
    while i >= low:
        if i + 1 < len(text) and _ascii_letter(text[i - 1]) and _ascii_letter(text[i + 1]):
            return i
        i = text.rfind(" ", low, i)
    return end


def _ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def table_name(tokenizer: str) -> str:
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}")
    return f"tokens_{tokenizer}"


def checked(settings: CostSettings) -> CostSettings:
    """``settings``, or ValueError saying why its tokenizer cannot be used here."""
    if settings.tokenizer is not None:
        reason = unavailable_reason()
        if reason:
            raise ValueError(reason)
    return settings


def _meta_key(tokenizer: str) -> str:
    return f"tokens:{tokenizer}"


def ensure(db: Db, settings: CostSettings, session_id: str | None = None,
           progress: ProgressHook | None = None, should_stop: StopHook | None = None) -> int:
    """Count the text of every event of ``session_id`` (None: of the whole corpus) that the
    tokenizer of ``settings`` has not counted yet; return how many were counted. Nothing to
    do with the ratios. ``progress(done, total)`` after each batch; when ``should_stop()``
    turns true the batches stop and :class:`explorer.jobs.Cancelled` is raised."""
    if settings.tokenizer is None:
        return 0
    name = settings.tokenizer
    encoding = _encoding(name)
    table = {"table": table_name(name)}
    with _WRITING:
        db.run("token_counts_create", table)
    version = str(data_version(db))
    if session_id is None and db.one("get_meta", key=_meta_key(name)).get("value") == version:
        return 0
    total = db.one("token_counts_missing_count", table, session_id=session_id)["missing"]
    done = 0
    if total:
        done = _count_missing(db, encoding, table, session_id, total, progress, should_stop)
    if session_id is None:
        db.run("set_meta", key=_meta_key(name), value=version)
    return done


def _count_missing(db: Db, encoding, table: dict, session_id: str | None, total: int,
                   progress: ProgressHook | None, should_stop: StopHook | None) -> int:
    reader = db.con.cursor()   # reads while ``db`` writes each batch
    writer = db.con.cursor()
    try:
        batches = reader.sql(queries.render("token_counts_missing", **table),
                             params={"session_id": session_id}).to_arrow_reader(BATCH_ROWS)
        done = 0
        for batch in batches:
            if should_stop and should_stop():
                raise Cancelled("token counts")
            texts = batch.column("text").to_pylist()
            counts = count_many(encoding, texts)
            token_batch = pa.table({"eid": batch.column("eid"),
                                    "bpe_tokens": pa.array(counts, pa.int64())})
            eids = batch.column("eid").to_pylist()
            with _WRITING:
                writer.register("token_batch", token_batch)
                try:
                    writer.execute(queries.render("token_counts_insert", **table),
                                   {"low": min(eids), "high": max(eids)}).fetchall()
                finally:
                    writer.unregister("token_batch")
            done += batch.num_rows
            if progress:
                progress(done, total)
        return done
    finally:
        reader.close()
        writer.close()


def forget_from(db: Db, eid_base: int) -> None:
    """Drop every count of import positions ``eid_base`` and later (an import is about to
    use them): inside the import's transaction."""
    for (name,) in db.run("table_names"):
        if name.startswith("tokens_") and name[len("tokens_"):] in TOKENIZERS:
            db.run("token_counts_forget", {"table": name}, eid_base=eid_base)
