-- Canonical events (FORMAT.md), the columns every audit and view reads. eid is the import
-- position: file order, then row order. cjk_chars/other_chars are the content's code
-- points by class (from text, or from chars + cjk: chars = their sum when text is absent).
-- The rarely present or bulky columns live in event_details, one row per event that has any.
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
    tokens BIGINT,
    user_id VARCHAR,
    turn BIGINT,
    message_id VARCHAR,
    event_id VARCHAR,
    cjk_chars INTEGER NOT NULL,
    other_chars INTEGER NOT NULL
)
