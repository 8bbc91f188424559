-- Forget that the index covers a file.
DELETE FROM search_files WHERE file_id = $file_id
