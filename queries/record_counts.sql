-- Records of the file just imported by an agent-format reader, by fate: a record is
-- imported when one of its rows is a kept event (eid = $eid_base + row_no), skipped when it
-- staged no row, rejected when none was kept and one was neither kept nor a dropped copy,
-- and a duplicate when all its rows were dropped copies (the dups table).
WITH per_record AS (
    SELECT r.rec, count(r.row_no) AS staged, count(e.eid) AS kept, count(d.eid) AS copies
    FROM record_rows r
    LEFT JOIN events e ON e.eid = $eid_base + r.row_no AND e.eid >= $eid_base
    LEFT JOIN dups d ON d.eid = $eid_base + r.row_no
    GROUP BY r.rec
)
SELECT count(*) AS records,
       count(*) FILTER (WHERE kept > 0) AS imported,
       count(*) FILTER (WHERE staged = 0) AS skipped,
       count(*) FILTER (WHERE kept = 0 AND staged > copies) AS rejected,
       count(*) FILTER (WHERE staged > 0 AND kept = 0 AND staged = copies) AS duplicates
FROM per_record
