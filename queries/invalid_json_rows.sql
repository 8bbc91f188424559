-- Records of the file being imported that DuckDB found not to be JSON, to explain them.
SELECT row_no, src_text FROM parsed WHERE reason = 'invalid JSON' LIMIT $limit
