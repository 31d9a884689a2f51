-- Location and skills are client text like the headline: they reached prompts, embeddings and the trace unscrubbed.
-- Their scrubbed copies are stored at ingestion, as the headline's is (004), and agents read only those.
-- scrub_version records which scrubber rules wrote a row's scrubbed copies (SCRUB_RULES_VERSION in
-- src/text/scrubber.ts), scrubbed_from_hash the content_hash they were made from: a process of the previous release
-- rewrites the raw fields and content_hash without them. A row below the current version or whose hashes differ
-- (all of them right after this migration) is scrubbed again in the background after the service starts
-- (src/candidates/rescrub.ts), and until then any read for an agent scrubs it on the fly. Nothing here can run the
-- scrubber, so nothing is filled in SQL.
ALTER TABLE candidates ADD COLUMN scrubbed_location text;
ALTER TABLE candidates ADD COLUMN scrubbed_skills text[] NOT NULL DEFAULT '{}';
ALTER TABLE candidates ADD COLUMN scrub_version integer NOT NULL DEFAULT 0;
ALTER TABLE candidates ADD COLUMN scrubbed_from_hash text;
