-- The text and flags of the events that have any (FORMAT.md columns text, is_error,
-- synthetic, branch, archived, raw, parent_session, parent_call, note), by eid. Events given as chars + cjk have none.
CREATE TABLE IF NOT EXISTS event_details (
    eid BIGINT NOT NULL,
    text VARCHAR,
    is_error BOOLEAN,
    synthetic BOOLEAN,
    branch VARCHAR,
    archived BOOLEAN,
    raw VARCHAR,
    parent_session VARCHAR,
    parent_call VARCHAR,
    note VARCHAR
)
