-- Input lines that could not be imported, kept with their text and the reason.
CREATE TABLE IF NOT EXISTS rejected (
    file_id INTEGER NOT NULL,
    line BIGINT NOT NULL,
    reason VARCHAR NOT NULL,
    text VARCHAR
)
