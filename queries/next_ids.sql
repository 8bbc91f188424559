-- The next free file id and event import position.
SELECT (SELECT coalesce(max(file_id) + 1, 1) FROM files) AS file_id,
       (SELECT coalesce(max(eid) + 1, 0) FROM events) AS eid_base
