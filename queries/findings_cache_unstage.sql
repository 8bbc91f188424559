-- Forget the findings stage once the findings table is made from it (findings_cache_stage.sql).
DROP TABLE IF EXISTS findings_stage
