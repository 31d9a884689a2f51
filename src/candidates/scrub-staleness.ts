// When a candidate row's scrubbed copies are stale: the one test the views, the backfill, reembed and the filters share.
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';

/**
 * A row's scrubbed copies are stale when older rules made them, or when they were not made from its current content:
 * a process of the release before migration 010 rewrites the raw fields and content_hash without touching
 * scrubbed_location, scrubbed_skills or scrubbed_from_hash. The same test, in SQL, is staleSql.
 */
export function scrubbedCopiesStale(row: { scrub_version: number; scrubbed_from_hash: string | null; content_hash: string }): boolean {
  return row.scrub_version < SCRUB_RULES_VERSION || row.scrubbed_from_hash !== row.content_hash;
}

/** scrubbedCopiesStale for candidates c, the rules' version as parameter `$${versionParam}`. */
export const staleSql = (versionParam: number) =>
  `(c.scrub_version < $${versionParam} OR c.scrubbed_from_hash IS DISTINCT FROM c.content_hash)`;
