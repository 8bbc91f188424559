-- The copies dropped from one imported file so far.
SELECT count(*) AS n FROM duplicates WHERE file_id = $file_id
