-- The columns of a session_events_narrow.sql statement (its QUERY marker), in order, without
-- running it (DuckDB binds it only).
DESCRIBE /*QUERY*/
