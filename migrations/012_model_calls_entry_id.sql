-- A ledger row's identity, given when the row is handed to the journal. The journal retries a batch whose write
-- failed, and a failure can come after the commit (the connection dropped before the answer arrived): the retry
-- must not record those calls, and move their run's totals, a second time. Rows written before this migration, and
-- rows the usage store writes directly (never retried), have none. The index holds only rows that have one.
ALTER TABLE model_calls ADD COLUMN entry_id uuid;
CREATE UNIQUE INDEX model_calls_entry_id ON model_calls (entry_id) WHERE entry_id IS NOT NULL;
