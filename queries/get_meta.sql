-- One fact about the database.
SELECT value FROM meta WHERE key = $key
