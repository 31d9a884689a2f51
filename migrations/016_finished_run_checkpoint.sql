-- A finished run is never resumed, and nothing but a claim reads a checkpoint: finished runs kept their last one
-- (~20 KB each, a quarter of a run's rows) for ever. The finish and the sweeps now drop it; this drops those kept.
-- version is not moved: a finished run's representation (and its ETag) does not include its checkpoint.
UPDATE matching_runs SET checkpoint = NULL WHERE status IN ('succeeded', 'failed', 'cancelled') AND checkpoint IS NOT NULL;
