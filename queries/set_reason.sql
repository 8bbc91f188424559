-- Replace the reason a record of the file being imported is rejected for.
UPDATE parsed SET reason = $reason WHERE row_no = $row_no
