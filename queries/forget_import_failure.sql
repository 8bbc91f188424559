-- Forget a file's failed import (it has now imported).
DELETE FROM import_failures WHERE path = $path
