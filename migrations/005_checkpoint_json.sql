-- The run's checkpoint is written after every step and only ever read back whole: it is never queried
-- inside. As jsonb every write parsed and re-encoded it (tens of kilobytes: seen ids, the backlog), which
-- on the embedded database took three times as long as storing it as json, on the run's critical path.
ALTER TABLE matching_runs ALTER COLUMN checkpoint TYPE json USING checkpoint::json;
