-- The (session_id, event_id) keys carried by several kept events: since copies are dropped
-- at import, these events differ in content (event_id_conflicts, AUDITS.md). Kept up to
-- date by each import (update_conflicts.sql) so that audits need not group every event.
CREATE TABLE IF NOT EXISTS conflicts (session_id VARCHAR NOT NULL, event_id VARCHAR NOT NULL)
