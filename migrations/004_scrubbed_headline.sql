-- Only scrubbed text may be indexed: the full-text column read the raw headline, which a client could
-- fill with a name or an email. The scrubbed headline is stored at ingestion and indexed instead.
-- Rows written before this migration have no scrubbed headline until they are upserted with a change;
-- until then their headline is simply not searchable (their resume text still is).
ALTER TABLE candidates ADD COLUMN scrubbed_headline text;
ALTER TABLE candidates DROP COLUMN search_tsv;
ALTER TABLE candidates ADD COLUMN search_tsv tsvector
  GENERATED ALWAYS AS (to_tsvector('english', coalesce(scrubbed_headline, '') || ' ' || scrubbed_text)) STORED;
CREATE INDEX candidates_tsv ON candidates USING gin (search_tsv);
