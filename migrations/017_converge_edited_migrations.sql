-- Two migrations were edited after some commits had applied them (010 gained scrubbed_from_hash; 015 lost a unique
-- index that held every trail write for a scan of run_trace). A database migrated with their first texts is accepted
-- (src/db/migrate.ts, SUPERSEDED) and brought here to the schema their present texts give; on any other this changes
-- nothing.
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS scrubbed_from_hash text;
DROP INDEX IF EXISTS run_trace_entry_id;
