-- Keyset cursors carry JavaScript Dates (millisecond precision). On PostgreSQL, timestamps have
-- microseconds, so a cursor taken from a row would no longer equal that row's created_at and pages
-- could skip or repeat rows. Storing the sort columns at millisecond precision makes them exact.
ALTER TABLE candidates ALTER COLUMN created_at TYPE timestamptz(3);
ALTER TABLE roles ALTER COLUMN created_at TYPE timestamptz(3);
ALTER TABLE matching_runs ALTER COLUMN created_at TYPE timestamptz(3);
