-- Drop the restated records from the record numbers of a followed file's new lines.
DELETE FROM record_rows WHERE rec < 0
