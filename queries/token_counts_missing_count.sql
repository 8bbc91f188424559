-- How many texts the tokenizer has not counted yet (as token_counts_missing selects them).
SELECT count(*) AS missing
FROM event_details d JOIN events e USING (eid)
WHERE d.text IS NOT NULL AND e.tokens IS NULL
  AND ($session_id IS NULL OR e.session_id = $session_id)
  AND NOT EXISTS (SELECT 1 FROM /*TABLE*/ t WHERE t.eid = d.eid)
