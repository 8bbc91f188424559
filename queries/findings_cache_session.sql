-- Every finding of one session in a findings cache table (TABLE marker), by first event
-- (seq, sub), then n: the order F3 steps through them.
SELECT n, rule, events FROM /*TABLE*/ WHERE session_id = $session
ORDER BY first_seq, first_sub, n
