-- Canonical events (FORMAT.md). eid is the import position: file order, then row order.
-- cjk_chars/other_chars feed the token estimate.
CREATE TABLE IF NOT EXISTS events (
    eid BIGINT NOT NULL,
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    session_id VARCHAR NOT NULL,
    seq BIGINT NOT NULL,
    sub INTEGER NOT NULL,
    ts BIGINT,
    kind kind_t NOT NULL,
    call_id VARCHAR,
    tool VARCHAR,
    text VARCHAR,
    chars INTEGER,
    cjk BOOLEAN,
    tokens BIGINT,
    user_id VARCHAR,
    turn BIGINT,
    message_id VARCHAR,
    event_id VARCHAR,
    is_error BOOLEAN,
    synthetic BOOLEAN,
    branch VARCHAR,
    archived BOOLEAN,
    raw VARCHAR,
    cjk_chars INTEGER NOT NULL,
    other_chars INTEGER NOT NULL
)
