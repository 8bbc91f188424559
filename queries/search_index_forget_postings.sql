-- Forget the postings of the import positions $low..$high (a file gone or changed).
DELETE FROM search_postings WHERE eid BETWEEN $low AND $high
