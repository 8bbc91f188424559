-- Which of the session ids given ($ids, a list) have events in the database.
SELECT DISTINCT session_id FROM events WHERE list_contains($ids, session_id)
