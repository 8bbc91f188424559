-- The texts the tokenizer has not counted yet: events with text and no tokens of their own,
-- of one session ($session_id) or of all ($session_id NULL), in import order.
SELECT d.eid, d.text
FROM event_details d JOIN events e USING (eid)
WHERE d.text IS NOT NULL AND e.tokens IS NULL
  AND ($session_id IS NULL OR e.session_id = $session_id)
  AND NOT EXISTS (SELECT 1 FROM /*TABLE*/ t WHERE t.eid = d.eid)
ORDER BY d.eid
