-- The id of the last write a worker made to the run (a checkpoint, scored candidates, an event, the finish). A write
-- whose connection was lost after it was sent may or may not have committed: sent again with the same id it finds
-- the id already there and changes nothing, so a run's writes wait such a fault out like any other outage instead of
-- failing the attempt (src/runs/run-queue.ts, src/runs/while-leased.ts). A run's writes are made one at a time.
ALTER TABLE matching_runs ADD COLUMN last_write uuid;
