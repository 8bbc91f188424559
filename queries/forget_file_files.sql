-- Forget what one file contributed (it changed on disk and is imported again).
DELETE FROM files WHERE file_id = $file_id
