-- Remember (committed) that a file's import failed, and why.
INSERT OR REPLACE INTO import_failures VALUES ($path, now(), $reason)
