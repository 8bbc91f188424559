"""Files into the database: detection, staging what the readers give, typing, duplicates,
the accounting of every record, durable imports. The only writer of events."""
