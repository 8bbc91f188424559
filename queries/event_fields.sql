-- One event's stored columns that a session's narrow frame leaves out, with its text and raw
-- record, by eid (explorer.session.event_texts: the event the detail shows or Ctrl+C copies).
SELECT e.eid, file_id, line, ts, tokens, user_id, turn, message_id, event_id, is_error,
    synthetic, branch, archived, parent_session, parent_call, text, raw
FROM events e LEFT JOIN event_details d ON d.eid = e.eid
WHERE e.eid = $eid
