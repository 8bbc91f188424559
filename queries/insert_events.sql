-- The valid rows of the file being imported, with their import position (eid), their seq
-- (the SEQ marker: the given one, or 1, 2, 3 ... in file order when no row of the file has
-- it) and the code-point counts of the token estimate (a text of one byte per code point
-- holds no CJK: the regular expression is not run on it); the copies find_duplicates.sql
-- found left out (after their seq is given: it counts them, as the file does).
INSERT INTO events
SELECT * FROM (
    SELECT
        $eid_base + row_no AS eid, $file_id AS file_id, line, session_id, /*SEQ*/ AS seq, sub, ts, kind, call_id,
        tool, tokens, user_id, turn, message_id, event_id,
        CASE WHEN text IS NOT NULL THEN text_cjk WHEN cjk THEN chars ELSE 0 END AS cjk_chars,
        CASE WHEN text IS NOT NULL THEN length(text) - text_cjk
             WHEN cjk THEN 0 ELSE coalesce(chars, 0) END AS other_chars
    FROM (
        SELECT *, CASE WHEN text IS NULL THEN NULL WHEN strlen(text) = length(text) THEN 0
                       ELSE length(regexp_replace(text, $non_cjk, '', 'g')) END AS text_cjk
        FROM (/*TYPED*/)
        WHERE reason IS NULL AND (seq_given OR $assign_seq)
    )
)
WHERE eid NOT IN (SELECT eid FROM dups)
