-- Location and skills are client text like the headline: they reached prompts, embeddings and the trace unscrubbed.
-- Their scrubbed copies are stored at ingestion, as the headline's is (004), and agents read only those.
-- scrub_version records which scrubber rules wrote a row's scrubbed copies (SCRUB_RULES_VERSION in
-- src/text/scrubber.ts): rows below the current version, all of them right after this migration, are scrubbed
-- again from their raw fields when the service opens the database (src/candidates/rescrub.ts), and until then
-- any read for an agent scrubs them on the fly. Nothing here can run the scrubber, so nothing is filled in SQL.
ALTER TABLE candidates ADD COLUMN scrubbed_location text;
ALTER TABLE candidates ADD COLUMN scrubbed_skills text[] NOT NULL DEFAULT '{}';
ALTER TABLE candidates ADD COLUMN scrub_version integer NOT NULL DEFAULT 0;
