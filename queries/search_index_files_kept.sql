-- The files the corpus search's index covers, as they were when indexed.
SELECT file_id, sha256, low, high, events, done FROM search_files ORDER BY file_id
