-- A trail row's identity, given when the row is handed to the journal, as ledger rows have had since 012. The
-- journal retries a batch whose write failed, and a failure can come after the commit (the connection dropped before
-- the answer arrived): the retry must not write the batch's trail rows a second time (a replay would find two
-- recordings of one exchange). Rows written before this migration have none; the index holds only rows that have one.
ALTER TABLE run_trace ADD COLUMN entry_id uuid;
CREATE UNIQUE INDEX run_trace_entry_id ON run_trace (entry_id) WHERE entry_id IS NOT NULL;
