-- The event kinds of FORMAT.md, stored compactly.
CREATE TYPE IF NOT EXISTS kind_t AS ENUM ('SYSTEM', 'USER', 'ASSISTANT', 'CALL', 'RESULT', 'SUMMARY', 'OTHER')
