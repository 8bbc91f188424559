-- Every table and view of the database, in every schema (what recognition looks at).
SELECT table_schema, table_name FROM information_schema.tables
WHERE table_catalog = current_database() ORDER BY table_schema, table_name
