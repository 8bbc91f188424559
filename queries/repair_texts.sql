-- The first characters of the texts of some events of one session (the repair's diff).
SELECT e.seq, e.sub, substr(d.text, 1, 300) AS text
FROM events e LEFT JOIN event_details d USING (eid)
WHERE e.session_id = $session_id AND list_contains($seqs, e.seq)
