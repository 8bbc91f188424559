-- Scratch table of typed rows for inputs read in chunks (JSON Lines, CSV): see typed_rows.sql.
CREATE OR REPLACE TEMP TABLE parsed (
    row_no BIGINT, line BIGINT, seq_given BOOLEAN, reason VARCHAR, src_text VARCHAR,
    session_id VARCHAR, seq BIGINT, sub BIGINT, ts BIGINT, kind kind_t, call_id VARCHAR,
    tool VARCHAR, text VARCHAR, chars BIGINT, cjk BOOLEAN, tokens BIGINT, user_id VARCHAR,
    turn BIGINT, message_id VARCHAR, event_id VARCHAR, is_error BOOLEAN, synthetic BOOLEAN,
    branch VARCHAR, archived BOOLEAN, raw VARCHAR, parent_session VARCHAR,
    parent_call VARCHAR, note VARCHAR
)
