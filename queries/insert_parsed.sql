-- Keep the typed rows of one chunk of the file being imported.
INSERT INTO parsed SELECT * FROM (/*TYPED*/)
