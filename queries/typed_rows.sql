-- Typed canonical rows of one input (a file, or a staged chunk of it), each with the first
-- reason to reject it
-- (NULL when valid). the COLUMNS marker holds, per canonical column, the typed value and the raw
-- pass-through r_<name>, chosen by the source column's type; the SOURCE marker yields row_no,
-- line, err, has_extra and src_rec (the record); the SRCTEXT marker turns src_rec
-- into text, only for rows that need it (rejected ones, records with extra keys, and
-- records without seq, which are rejected when other rows of the file carry it).
SELECT
    row_no, line, seq_given, reason,
    CASE WHEN reason IS NOT NULL OR has_extra OR NOT seq_given THEN /*SRCTEXT*/ END AS src_text,
    session_id, seq, coalesce(sub, 0) AS sub, ts, kind, call_id, tool, text, chars, cjk,
    tokens, user_id, turn, message_id, event_id, is_error, synthetic, branch, archived,
    CASE WHEN has_extra THEN /*SRCTEXT*/ ELSE raw END AS raw,
    parent_session, parent_call, note
FROM (
    -- an integral number past BIGINT (a JSON 1e30, a Parquet UBIGINT) says so
    SELECT *, r_seq IS NOT NULL AS seq_given,
        'is an integer out of range (−2^63 … 2^63−1)' AS out_of_range,
        CASE
            WHEN err IS NOT NULL THEN err
            WHEN session_id IS NULL THEN 'missing session_id'
            WHEN kind IS NULL AND (r_kind IS NULL OR trim(CAST(r_kind AS VARCHAR)) = '') THEN 'missing kind'
            WHEN kind IS NULL THEN 'unknown kind ' || to_json(left(CAST(r_kind AS VARCHAR), 60))
            WHEN r_seq IS NOT NULL AND seq IS NULL THEN 'seq ' || CASE WHEN TRY_CAST(CAST(r_seq AS VARCHAR) AS DOUBLE) % 1 = 0
                THEN out_of_range ELSE 'is not an integer' END || ': ' || left(CAST(r_seq AS VARCHAR), 60)
            WHEN r_sub IS NOT NULL AND sub IS NULL THEN 'sub ' || CASE WHEN TRY_CAST(CAST(r_sub AS VARCHAR) AS DOUBLE) % 1 = 0
                THEN out_of_range ELSE 'is not an integer' END || ': ' || left(CAST(r_sub AS VARCHAR), 60)
            WHEN sub NOT BETWEEN 0 AND 2147483647 THEN 'sub out of range (0 to 2147483647): ' || sub
            WHEN r_ts IS NOT NULL AND ts IS NULL THEN 'unparsable ts: ' || left(CAST(r_ts AS VARCHAR), 60)
            WHEN r_chars IS NOT NULL AND chars IS NULL THEN 'chars ' || CASE WHEN TRY_CAST(CAST(r_chars AS VARCHAR) AS DOUBLE) % 1 = 0
                THEN out_of_range ELSE 'is not an integer' END || ': ' || left(CAST(r_chars AS VARCHAR), 60)
            WHEN chars NOT BETWEEN 0 AND 2147483647 THEN 'chars out of range (0 to 2147483647): ' || chars
            WHEN r_cjk IS NOT NULL AND cjk IS NULL THEN 'cjk is not a boolean: ' || left(CAST(r_cjk AS VARCHAR), 60)
            WHEN r_tokens IS NOT NULL AND tokens IS NULL THEN 'tokens ' || CASE WHEN TRY_CAST(CAST(r_tokens AS VARCHAR) AS DOUBLE) % 1 = 0
                THEN out_of_range ELSE 'is not an integer' END || ': ' || left(CAST(r_tokens AS VARCHAR), 60)
            WHEN tokens < 0 THEN 'negative tokens: ' || tokens
            WHEN r_turn IS NOT NULL AND turn IS NULL THEN 'turn ' || CASE WHEN TRY_CAST(CAST(r_turn AS VARCHAR) AS DOUBLE) % 1 = 0
                THEN out_of_range ELSE 'is not an integer' END || ': ' || left(CAST(r_turn AS VARCHAR), 60)
            WHEN r_is_error IS NOT NULL AND is_error IS NULL THEN 'is_error is not a boolean: ' || left(CAST(r_is_error AS VARCHAR), 60)
            WHEN r_synthetic IS NOT NULL AND synthetic IS NULL THEN 'synthetic is not a boolean: ' || left(CAST(r_synthetic AS VARCHAR), 60)
            WHEN r_archived IS NOT NULL AND archived IS NULL THEN 'archived is not a boolean: ' || left(CAST(r_archived AS VARCHAR), 60)
        END AS reason
    FROM (
        SELECT row_no, line, err, has_extra, src_rec, /*COLUMNS*/
        FROM /*SOURCE*/
    )
)
