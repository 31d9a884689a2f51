// The heuristic query expander: a fresh search per round, from the role's title, skills and key terms,
// widened with related skills the organisation's pool actually has; filters only where they cannot starve.
import type { RoleSpec, SearchFilters } from '../../matching/domain.js';
import { relatedSkills, skillKey } from '../../text/skills.js';
import { tokenize } from '../../text/tokenize.js';
import { sendOnce } from '../../db/database.js';
import type { AgentCallContext, ExpandInput, ExpandOutput, PoolInsight, QueryExpander } from '../types.js';
import { isSearchableSkill, keyTermsAsWritten, roleSkills } from './role-terms.js';
import { fairTitle } from './protected-criteria.js';

/** A filter matching fewer candidates than this is dropped: a starved search is worse than an unfiltered one. */
export const MIN_FILTER_MATCHES = 20;
const CORE_SKILLS = 6;
const CORE_TERMS = 12;
const TERMS_PER_QUERY = 6;

/** Comparison form of a query: "iOS  Developer" and "ios developer" are the same search. */
export function queryKey(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

interface Plan {
  /** Why this search: shown nowhere, but keeps the order readable. */
  kind: 'core' | 'hints' | 'skills' | 'terms';
  query: string;
}

async function vocabularyOf(pool: PoolInsight, ctx: AgentCallContext): Promise<Map<string, { skill: string; count: number }>> {
  const entries = await (ctx.read ?? sendOnce)(() => pool.skillVocabulary(ctx.orgId));
  const out = new Map<string, { skill: string; count: number }>();
  for (const e of entries) {
    const key = skillKey(e.skill);
    const prev = out.get(key);
    if (!prev || e.count > prev.count) out.set(key, e);
  }
  return out;
}

/** Every search this role could run, in the order worth running them. */
function planSearches(role: RoleSpec, hints: string[], vocabulary: Map<string, { skill: string; count: number }>): Plan[] {
  const skills = roleSkills(role);
  const must = skills.must.filter(isSearchableSkill);
  const nice = skills.nice.filter(isSearchableSkill);
  const title = fairTitle(role).replace(/\s+/g, ' ').trim();
  const terms = keyTermsAsWritten(role, new Set([...tokenize(title), ...must.flatMap((s) => tokenize(s))]));
  const join = (...parts: string[]) => parts.filter((p) => p.trim() !== '').join(' ');
  const plans: Plan[] = [{ kind: 'core', query: join(title, ...must.slice(0, CORE_SKILLS), ...terms.slice(0, CORE_TERMS)) }];
  if (hints.length > 0) plans.push({ kind: 'hints', query: join(title, ...hints) });

  // Adjacent skills count only when someone in the pool has them: a search for a skill nobody lists finds no one.
  const roleKeys = new Set([...must, ...nice].map(skillKey));
  const related = [...new Set(must.flatMap((s) => relatedSkills(s)))]
    .map((s) => vocabulary.get(skillKey(s)))
    .filter((e): e is { skill: string; count: number } => e !== undefined && !roleKeys.has(skillKey(e.skill)))
    .sort((a, b) => b.count - a.count || (a.skill < b.skill ? -1 : 1))
    .map((e) => e.skill);
  const widening = [...nice, ...must.slice(CORE_SKILLS), ...related];
  for (let i = 0; i < widening.length; i += TERMS_PER_QUERY) {
    plans.push({ kind: 'skills', query: join(title, ...widening.slice(i, i + TERMS_PER_QUERY)) });
  }
  for (let i = CORE_TERMS; i < terms.length; i += TERMS_PER_QUERY) {
    plans.push({ kind: 'terms', query: join(title, ...terms.slice(i, i + TERMS_PER_QUERY)) });
  }
  return plans;
}

/** Filters the role states, each kept only if enough of the pool still passes it. */
async function permissiveFilters(pool: PoolInsight, role: RoleSpec, ctx: AgentCallContext): Promise<SearchFilters> {
  const filters: SearchFilters = {};
  const read = ctx.read ?? sendOnce;
  if (role.minYearsExperience !== null && role.minYearsExperience > 0) {
    const candidate = { ...filters, minYears: role.minYearsExperience };
    if ((await read(() => pool.countMatching(ctx.orgId, candidate))) >= MIN_FILTER_MATCHES) filters.minYears = role.minYearsExperience;
  }
  // Only an explicitly on-site role narrows by place; a remote or unstated one searches everywhere.
  if (role.location && role.remote === false) {
    const candidate = { ...filters, location: role.location };
    if ((await read(() => pool.countMatching(ctx.orgId, candidate))) >= MIN_FILTER_MATCHES) filters.location = role.location;
  }
  return filters;
}

export function createHeuristicQueryExpander(pool: PoolInsight): QueryExpander {
  return {
    async expand(input: ExpandInput, ctx: AgentCallContext): Promise<ExpandOutput> {
      const { role, iteration, usedQueries, hints } = input;
      const vocabulary = await vocabularyOf(pool, ctx);
      const used = new Set(usedQueries.map(queryKey));
      const usedTokens = new Set(usedQueries.flatMap((q) => tokenize(q)));
      const titleTokens = new Set(tokenize(fairTitle(role)));
      const fresh = (plan: Plan) => {
        if (used.has(queryKey(plan.query))) return false;
        // A later round's search must try something new beyond the title.
        if (iteration <= 1 && plan.kind === 'core') return true;
        return tokenize(plan.query).some((t) => !usedTokens.has(t) && !titleTokens.has(t));
      };
      const plans = planSearches(role, iteration > 1 ? hints : [], vocabulary).filter(fresh);
      const queries: string[] = [];
      const seen = new Set<string>();
      // One new search per round keeps later rounds supplied; the reflector's hints ride along as a second.
      const wanted = iteration > 1 && plans.some((p) => p.kind === 'hints') ? 2 : 1;
      for (const plan of plans) {
        if (queries.length >= wanted) break;
        const key = queryKey(plan.query);
        if (key === '' || seen.has(key)) continue;
        seen.add(key);
        queries.push(plan.query);
      }
      return { queries, filters: await permissiveFilters(pool, role, ctx) };
    },
  };
}
