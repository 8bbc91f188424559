-- Records of the file being imported: how many, and how many carry seq.
SELECT count(*) FILTER (WHERE seq_given) AS given, count(*) AS records FROM (/*TYPED*/)
