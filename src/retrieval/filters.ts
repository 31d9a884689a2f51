// Search filters as SQL: parameterised clauses over the candidates table aliased "c".
//
// Filters are written by models (the LLM query expander, whose evaluate_filters tool counts them against the live
// pool) or taken from the scrubbed role, and what they match comes back to a model as counts and retrieved candidates.
// So they read only what a model may read: the scrubbed location and the keys of the scrubbed skills, never the raw
// columns. On the raw location a model could learn, one count at a time, whether "NW1 6XE" or "Baker Street" is in
// someone's location, although no prompt ever shows it.
//
// A row whose scrubbed copies are stale (scrubbedCopiesStale: made by older rules, or before its content changed)
// matches no location or skill filter: its copies may be missing (scrubbed_location is NULL on rows from before
// migration 010), made by rules that missed something the current ones catch, or made from older content, and its
// skill_keys may come from the raw skills. Falling back to the raw column would reopen the side channel, and an older
// copy can hold what the current rules remove. So the callers (search.ts, candidate-store countMatching) first have
// the organisation's stale rows scrubbed again (rescrub.ts currentCopiesFor) until this process's background backfill
// has caught up: right after an upgrade every row is stale, and a filtered search would otherwise find nobody.
import { staleSql } from '../candidates/scrub-staleness.js';
import type { SearchFilters } from '../matching/domain.js';
import { PII_PLACEHOLDERS } from '../text/pii-placeholders.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import { skillKey } from '../text/skills.js';

// The scrubbed location without its placeholders: "[ADDRESS]" stands where a street was, and a filter on "ADDRESS" or
// "DRESS" would count the candidates whose location held one, a fact the placeholder is there to hide.
const PLACEHOLDER_PATTERN = `\\s*(${PII_PLACEHOLDERS.map((p) => p.replace(/[[\]]/g, '\\$&')).join('|')})`;
const SHOWN_LOCATION = `regexp_replace(c.scrubbed_location, '${PLACEHOLDER_PATTERN}', '', 'g')`;

/** Whether the filters read the scrubbed copies (a skill or location filter), and so need them current (rescrub.ts). */
export function readsScrubbedCopies(filters: SearchFilters): boolean {
  return Boolean(filters.skillsAll?.length || filters.skillsAny?.length || filters.location);
}

/** Appends the filter values to `values` and returns the matching "AND ..." clause (or ''). */
export function filterSql(filters: SearchFilters, values: unknown[]): string {
  const clauses: string[] = [];
  const push = (v: unknown) => `$${values.push(v)}`;
  // skill_keys are the keys of the scrubbed skills (candidate-service, rescrub).
  if (filters.skillsAll?.length) clauses.push(`c.skill_keys @> ${push(filters.skillsAll.map(skillKey))}::text[]`);
  if (filters.skillsAny?.length) clauses.push(`c.skill_keys && ${push(filters.skillsAny.map(skillKey))}::text[]`);
  if (filters.location) clauses.push(`${SHOWN_LOCATION} ILIKE ${push(`%${filters.location.replace(/[\\%_]/g, '\\$&')}%`)}`);
  if (readsScrubbedCopies(filters)) clauses.push(`NOT ${staleSql(values.push(SCRUB_RULES_VERSION))}`);
  if (filters.minYears !== undefined) clauses.push(`c.years_experience >= ${push(filters.minYears)}`);
  return clauses.length ? `AND ${clauses.join(' AND ')}` : '';
}
