-- Record (committed, before the file's transaction) that a file's import has begun.
INSERT OR REPLACE INTO imports_in_progress VALUES ($path, now(), $pid)
