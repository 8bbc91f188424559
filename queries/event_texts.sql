-- The text and raw record of some events of one session, by eid (explorer.session.event_texts:
-- the rows the turn tree shows, a block at a time, and the one the detail shows). $eids is
-- the list asked for; $low/$high its bounds, so that only the blocks holding them are read.
SELECT eid, text, raw
FROM event_details
WHERE eid BETWEEN $low AND $high AND list_contains($eids, eid)
