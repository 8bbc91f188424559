-- Rows dropped because the same event (session, event_id, content) was already imported.
CREATE TABLE IF NOT EXISTS duplicates (
    file_id INTEGER NOT NULL,
    line BIGINT NOT NULL,
    session_id VARCHAR NOT NULL,
    event_id VARCHAR NOT NULL,
    seq BIGINT NOT NULL,
    sub BIGINT NOT NULL,
    kind kind_t NOT NULL,
    call_id VARCHAR,
    kept_eid BIGINT NOT NULL
)
