-- Forget the start record of a file's import (it committed, failed or was cancelled).
DELETE FROM imports_in_progress WHERE path = $path
