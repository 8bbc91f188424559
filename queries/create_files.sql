-- One row per imported input file; status is 'complete' once its events are committed.
-- records = imported + skipped + rejected + duplicates (explorer.ingest.imports.FileReport);
-- skipped_by_reason is a JSON object: reason -> records.
CREATE TABLE IF NOT EXISTS files (
    file_id INTEGER PRIMARY KEY,
    path VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    size BIGINT NOT NULL,
    format VARCHAR NOT NULL,
    records BIGINT NOT NULL,
    imported BIGINT NOT NULL,
    skipped BIGINT NOT NULL,
    rejected BIGINT NOT NULL,
    duplicates BIGINT NOT NULL,
    events BIGINT NOT NULL,
    skipped_by_reason JSON NOT NULL,
    seq_assigned BOOLEAN NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL,
    status VARCHAR NOT NULL
)
