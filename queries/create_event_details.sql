-- The text and flags of the events that have any (FORMAT.md columns text, is_error,
-- synthetic, branch, archived, raw, parent_session, parent_call, note), by eid. Events given as chars + cjk have none.
-- text and raw, the bulky ones, are stored ZSTD-compressed: with DuckDB's own choice (DICT_FSST)
-- this table's insert took 2.7 s of a 4.8 s import into a database file (bench_import's 233 MB
-- of canonical JSON Lines) and made a file of 142 MB; with ZSTD, 0.54 s and a file of 23 MB.
CREATE TABLE IF NOT EXISTS event_details (
    eid BIGINT NOT NULL,
    text VARCHAR USING COMPRESSION zstd,
    is_error BOOLEAN,
    synthetic BOOLEAN,
    branch VARCHAR,
    archived BOOLEAN,
    raw VARCHAR USING COMPRESSION zstd,
    parent_session VARCHAR,
    parent_call VARCHAR,
    note VARCHAR
)
