-- Staged JSON Lines (table stage_lines) that need a second look in Python: not valid JSON
-- (records glued onto one line, a torn last line), or holding more than $depth opening
-- brackets (which may nest too deep for Python's json); valid says which.
SELECT row_no, json_valid(src) AS valid FROM stage_lines
WHERE err IS NULL
  AND (NOT json_valid(src)
       OR (strlen(src) > 2 * $depth
           AND strlen(src) - strlen(replace(replace(src, '{', ''), '[', '')) > $depth))
ORDER BY row_no
