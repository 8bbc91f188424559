-- The events of the given eids as findings name them ({seq, sub, kind, call_id}), by eid.
SELECT eid, seq, sub, CAST(kind AS VARCHAR) AS kind, call_id
FROM events WHERE eid IN (SELECT unnest($eids::BIGINT[]))
ORDER BY eid
