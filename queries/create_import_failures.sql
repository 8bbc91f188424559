-- Files whose import failed (the reader crashed, the file could not be read): kept until the file imports.
CREATE TABLE IF NOT EXISTS import_failures (
    path VARCHAR PRIMARY KEY,
    failed_at TIMESTAMPTZ NOT NULL,
    reason VARCHAR NOT NULL
)
