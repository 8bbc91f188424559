-- Files an import has started on; a row outlives its import only when the process stopped.
CREATE TABLE IF NOT EXISTS imports_in_progress (
    path VARCHAR PRIMARY KEY,
    started_at TIMESTAMPTZ NOT NULL,
    pid INTEGER NOT NULL
)
