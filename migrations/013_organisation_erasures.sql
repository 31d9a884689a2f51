-- How many erasures the organisation has had. The erasure's transaction adds one; a process that remembers something
-- read from the organisation's candidates (the query expander's skill vocabulary, full-text search's word statistics)
-- compares the count it read with that copy to the current one, and reads the candidates again when it grew: an
-- erasure through one process reaches what every other process remembers at its next use, on PostgreSQL and on the
-- embedded database alike (whose wire-protocol server does not pass notifications between connections).
ALTER TABLE organisations ADD COLUMN erasures bigint NOT NULL DEFAULT 0;
