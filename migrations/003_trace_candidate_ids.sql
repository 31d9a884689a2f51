-- A rerank exchange in the audit trail carries the scrubbed text of a whole batch of candidates and names
-- them in data->'candidateIds'; erasing one candidate must find those rows without scanning every trail.
CREATE INDEX run_trace_exchange_candidates ON run_trace USING gin ((data -> 'candidateIds')) WHERE kind = 'model.exchange';
