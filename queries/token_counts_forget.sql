-- Forget the counts of import positions from $eid_base on: an import about to give those
-- positions to new events (after the file that held them was forgotten) makes them stale.
DELETE FROM /*TABLE*/ WHERE eid >= $eid_base
