-- What the file just imported gave: events kept, copies dropped.
SELECT (SELECT count(*) FROM events WHERE file_id = $file_id) AS events,
       (SELECT count(*) FROM dups) AS duplicates
