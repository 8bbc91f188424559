-- Record one fact about the database.
INSERT OR REPLACE INTO meta VALUES ($key, $value)
