-- The sessions of sub-agents (FORMAT.md parent_session, parent_call): per child session,
-- the session that started it and the call, as its events give them (the first given).
SELECT e.session_id, min(d.parent_session) AS parent_session, min(d.parent_call) AS parent_call
FROM event_details d JOIN events e USING (eid)
WHERE d.parent_session IS NOT NULL
GROUP BY e.session_id
