-- A trail row's identity, given when the row is handed to the journal, as ledger rows have had since 012. The
-- journal retries a batch whose write failed, and a failure can come after the commit (the connection dropped before
-- the answer arrived): the retry must not write the batch's trail rows a second time (a replay would find two
-- recordings of one exchange). Rows written before this migration have none. No index: the journal looks among the
-- batch's runs' rows (run_trace_run), and a unique index built here would hold every trail write of a running service
-- for the whole scan of its largest table.
ALTER TABLE run_trace ADD COLUMN entry_id uuid;
