-- The widest value of every column of an audit cache table (TABLE marker), to size the
-- columns without reading every row: the longest session id, the largest of each count
-- (counts are never negative; the MAXES marker).
SELECT
    arg_max(session_id, length(session_id)) AS session_id,
    /*MAXES*/
FROM /*TABLE*/
