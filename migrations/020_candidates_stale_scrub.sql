-- Finding the candidates whose scrubbed copies are stale (src/candidates/rescrub.ts, scrub-staleness.ts) without
-- reading them all: every process looks at its start and every ten minutes, and a pass that found nothing read the whole
-- table in id order. One index per half of the test: rows older rules wrote (a range of scrub_version, read in id
-- order within each version), and rows whose copies were not made from their current content (a partial index that
-- holds only those, none once the backfill is done). Building them locks writes to candidates for the seconds a build
-- takes (1.5 s for the two over 300,000 rows on PostgreSQL 15, 2 cores).
CREATE INDEX candidates_scrub_version ON candidates (scrub_version, id);
CREATE INDEX candidates_scrubbed_from_other ON candidates (id) WHERE scrubbed_from_hash IS DISTINCT FROM content_hash;
