-- How many records (and their rows) the reader of the file being imported mapped.
SELECT count(*) AS n FROM record_rows
