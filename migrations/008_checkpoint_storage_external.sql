-- The checkpoint (tens of kilobytes of json) is rewritten after every step of a run, on its critical path, and
-- read back only on resume. Compressing it on each write cost more than it saved: on the embedded database a
-- 54 KB checkpoint took ~5.4 ms to write compressed and ~3.5 ms uncompressed (out of line either way).
ALTER TABLE matching_runs ALTER COLUMN checkpoint SET STORAGE EXTERNAL;
