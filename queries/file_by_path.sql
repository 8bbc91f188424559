-- Earlier imports of a path, newest first.
SELECT file_id, sha256, status FROM files WHERE path = $path ORDER BY file_id DESC
