-- The USER events a turn trigger does not count (REPLAY.md: turn-opening USER events that are
-- neither synthetic nor on a branch): their eids.
SELECT e.eid FROM events e JOIN event_details d USING (eid)
WHERE e.kind = 'USER' AND (coalesce(d.synthetic, false) OR d.branch IS NOT NULL)
