-- The number of events of each session, sessions in session_id order: the sizes of the
-- blocks of sweep_order, which sorts by session_id first.
SELECT count(*) AS events FROM events GROUP BY session_id ORDER BY session_id
