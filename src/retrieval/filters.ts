// Search filters as SQL: parameterised clauses over the candidates table aliased "c".
import type { SearchFilters } from '../matching/domain.js';
import { skillKey } from '../text/skills.js';

/** Appends the filter values to `values` and returns the matching "AND ..." clause (or ''). */
export function filterSql(filters: SearchFilters, values: unknown[]): string {
  const clauses: string[] = [];
  const push = (v: unknown) => `$${values.push(v)}`;
  if (filters.skillsAll?.length) clauses.push(`c.skill_keys @> ${push(filters.skillsAll.map(skillKey))}::text[]`);
  if (filters.skillsAny?.length) clauses.push(`c.skill_keys && ${push(filters.skillsAny.map(skillKey))}::text[]`);
  if (filters.location) clauses.push(`c.location ILIKE ${push(`%${filters.location.replace(/[\\%_]/g, '\\$&')}%`)}`);
  if (filters.minYears !== undefined) clauses.push(`c.years_experience >= ${push(filters.minYears)}`);
  return clauses.length ? `AND ${clauses.join(' AND ')}` : '';
}
