-- The tables of the main database.
SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_catalog = current_database()
