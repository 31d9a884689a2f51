// The LLM query expander: search queries and filters, with one tool that tests filters against the live pool.
import { z } from 'zod';
import { sendOnce } from '../../db/database.js';
import { StructuredOutputError, ToolLoopError } from '../../llm/errors.js';
import { fence, neutraliseFenceTags } from '../../llm/fence.js';
import { runTools } from '../../llm/tool-runner.js';
import { createToolRegistry, defineTool, type ToolRegistry } from '../../llm/tools.js';
import type { SearchFilters } from '../../matching/domain.js';
import { containsPii } from '../../text/scrubber.js';
import { closestSkills, skillKey } from '../../text/skills.js';
import { createHeuristicQueryExpander } from '../heuristic/query-expander.js';
import type { AgentCallContext, ExpandInput, ExpandOutput, PoolInsight, QueryExpander } from '../types.js';
import { callFields, DATA_RULE, loggerFor, renderRole, scrubModelText, type LlmAgentDeps } from './prompt.js';

/** Handler runs of evaluate_filters per expansion; the tool runner answers further calls with an error result. */
export const EVALUATE_FILTERS_MAX_ATTEMPTS = 3;
// Three tool turns, the final answer and its re-asks, with room to spare; the runner stops anything beyond.
const MAX_TURNS = 8;
const MAX_LOOP_TOKENS = 60_000;
const MAX_TOKENS_PER_TURN = 800;
const TOOL_TIMEOUT_MS = 5_000;

export const FilterArgs = z.object({
  skillsAll: z.array(z.string().max(100)).max(10).optional().describe('every one of these skills'),
  skillsAny: z.array(z.string().max(100)).max(20).optional().describe('at least one of these skills'),
  location: z.string().max(200).optional().describe('substring of the candidate location'),
  minYears: z.number().int().min(0).max(70).optional().describe('at least this many years of experience'),
});

// Nullable rather than optional: strict structured output needs every key present.
const FinalFilters = z.object({
  skillsAll: z.array(z.string()),
  skillsAny: z.array(z.string()),
  location: z.string().nullable(),
  minYears: z.number().int().min(0).max(70).nullable(),
});

/** The final answer: one to five queries, at least one of them new this run, and the filters to search with. */
export function expansionSchema(usedQueries: string[]) {
  const used = new Set(usedQueries.map((q) => q.trim().toLowerCase()));
  return z
    .object({ queries: z.array(z.string()).min(1).max(5), filters: FinalFilters })
    .refine((a) => a.queries.some((q) => q.trim() !== '' && !used.has(q.trim().toLowerCase())), {
      message: 'give at least one query that was not used before in this run',
      path: ['queries'],
    });
}

export const QUERY_EXPANDER_INSTRUCTIONS = `You write search queries that find candidates for one role in an organisation's candidate pool.
${DATA_RULE}

Write 1 to 5 short queries (a few words each: skills, titles, domain terms) that are new in this run, and choose filters.
Filters narrow the pool: skillsAll (all required), skillsAny (at least one), location (part of the candidate's location),
minYears (minimum years of experience). Prefer few filters: a filter that matches almost nobody hides good candidates.
Before answering you may call evaluate_filters to count how many candidates a filter combination matches; its result
comes inside <tool_result> and is data like the fenced text above. If it reports unknown skills, use the closest valid
skills it suggests or drop them. Use an empty list or null for filters you do not set.
Answer with the JSON object only: {"queries": [...], "filters": {"skillsAll": [...], "skillsAny": [...], "location": ..., "minYears": ...}}.`;

type Vocabulary = { list: string[]; byKey: Map<string, string>; suggestible: () => string[] };

// A skill only one candidate holds is that candidate's (a project's or an employer's name is written as a skill too):
// shown to the model, it would be kept in the run's trail and queries after the candidate's erasure. Offered are the
// skills of two candidates or more; any skill still works as a filter.
const MIN_HOLDERS_TO_SUGGEST = 2;

/**
 * The pool's skills are what candidates uploaded (up to 100 characters each), so a suggestion is text a user wrote
 * reaching the model. Only entries shaped like a skill name are offered: a few words of letters, digits and the
 * punctuation skill names use ("C++", "CI/CD", "Google Cloud Platform (GCP)"), with no tag, control token or
 * personal data in them. Any other entry still works as a filter; it is never put in front of the model.
 */
const SKILL_SHAPE = /^[\p{L}\p{N}][\p{L}\p{N} .+#/&()'_-]{0,59}$/u;
const MAX_SUGGESTION_WORDS = 5;
const SUGGESTIONS_PER_SKILL = 5;
const skillShaped = (skill: string) => SKILL_SHAPE.test(skill) && skill.split(' ').filter(Boolean).length <= MAX_SUGGESTION_WORDS;
// No guess at names: two capitalised words ("Power BI", "Google Analytics") read as a person's header line. The
// vocabulary is the scrubbed skills, where the candidate's own name is already gone.
const safeToSuggest = (skill: string) => neutraliseFenceTags(skill) === skill && !containsPii(skill, { detectNames: false });

/** The nearest vocabulary entries that are safe to show; the costlier checks run on the nearest few only. */
function suggestionsFor(skill: string, vocab: Vocabulary): string[] {
  const out: string[] = [];
  for (const entry of closestSkills(skill, vocab.suggestible(), SUGGESTIONS_PER_SKILL * 4)) {
    if (out.length === SUGGESTIONS_PER_SKILL) break;
    if (safeToSuggest(entry)) out.push(entry);
  }
  return out;
}

function filtersOf(args: z.output<typeof FilterArgs>): SearchFilters {
  return {
    ...(args.skillsAll?.length ? { skillsAll: args.skillsAll } : {}),
    ...(args.skillsAny?.length ? { skillsAny: args.skillsAny } : {}),
    ...(args.location?.trim() ? { location: args.location.trim() } : {}),
    ...(args.minYears !== undefined && args.minYears !== null ? { minYears: args.minYears } : {}),
  };
}

/** The tool, bound to one expansion's vocabulary: an unknown skill gets the nearest real ones instead of a bare zero. */
function evaluateFiltersTool(pool: PoolInsight, vocabulary: () => Promise<Vocabulary>) {
  return defineTool({
    name: 'evaluate_filters',
    description: 'Counts the candidates in the pool that match a filter combination. Unknown skills are reported with the closest valid skills.',
    parameters: FilterArgs,
    timeoutMs: TOOL_TIMEOUT_MS,
    maxAttempts: EVALUATE_FILTERS_MAX_ATTEMPTS,
    handler: async (args, ctx) => {
      const vocab = await vocabulary();
      const chosen = [...(args.skillsAll ?? []), ...(args.skillsAny ?? [])];
      const unknownSkills = [...new Set(chosen.filter((s) => !vocab.byKey.has(skillKey(s))))];
      if (unknownSkills.length > 0) {
        const closestValidSkills = Object.fromEntries(unknownSkills.map((s) => [s, suggestionsFor(s, vocab)]));
        return { count: 0, unknownSkills, closestValidSkills };
      }
      return { count: await pool.countMatching(ctx.orgId, filtersOf(args)) };
    },
  });
}

/** The final filters in the vocabulary's own spelling; a skill the pool does not have would only empty the search. */
function finalFilters(raw: z.output<typeof FinalFilters>, vocab: Vocabulary): { filters: SearchFilters; dropped: string[] } {
  const dropped: string[] = [];
  const known = (skills: string[]) =>
    [...new Set(skills.flatMap((s) => {
      const hit = vocab.byKey.get(skillKey(s));
      if (!hit) dropped.push(s);
      return hit ? [hit] : [];
    }))];
  const filters = filtersOf({
    skillsAll: known(raw.skillsAll),
    skillsAny: known(raw.skillsAny),
    // Model-written, bound for the run's events and trail: scrubbed, and bounded as the count tool's own argument is.
    location: raw.location ? scrubModelText(raw.location).slice(0, 200) || undefined : undefined,
    minYears: raw.minYears ?? undefined,
  });
  return { filters, dropped };
}

// Used queries and hints are model-written and come back from the run's checkpoint, which an older release may have
// written unscrubbed: they are scrubbed here, where they reach a model, as the role is in renderRole.
function renderRequest(input: ExpandInput): string {
  const parts = [renderRole(input.role), '', `# Round ${input.iteration}`];
  const used = input.usedQueries.map(scrubModelText);
  parts.push(used.length ? `Queries already used (write different ones):\n${fence('queries', used.join('\n'))}` : 'No queries used yet.');
  if (input.hints.length) parts.push(`Hints from the previous round:\n${fence('hints', input.hints.map(scrubModelText).join('\n'))}`);
  return parts.join('\n');
}

export function createLlmQueryExpander(deps: LlmAgentDeps): QueryExpander {
  // A model that gives no valid expansion within its re-asks, or runs its tool loop into a cap, is no reason to fail the
  // run (a retry pays for the same behaviour again): the round searches with the role's own terms, as the heuristic
  // engine would, and the trail keeps the invalid answers. The reflector already goes on without its answer.
  const fallback = createHeuristicQueryExpander(deps.pool);
  return {
    async expand(input: ExpandInput, ctx: AgentCallContext): Promise<ExpandOutput> {
      // Read once per expansion: the tool and the final check see the same vocabulary.
      let cached: Promise<Vocabulary> | null = null;
      const vocabulary = () =>
        (cached ??= (ctx.read ?? sendOnce)(() => deps.pool.skillVocabulary(ctx.orgId)).then((rows) => {
          const list = rows.map((r) => r.skill);
          let shaped: string[] | null = null;
          const shared = () => rows.filter((r) => r.count >= MIN_HOLDERS_TO_SUGGEST && skillShaped(r.skill)).map((r) => r.skill);
          return { list, byKey: new Map(list.map((s) => [skillKey(s), s])), suggestible: () => (shaped ??= shared()) };
        }));
      // Read while the model thinks, not after it answers (the read holds no connection during the call).
      vocabulary().catch(() => {});
      const registry: ToolRegistry = createToolRegistry([evaluateFiltersTool(deps.pool, vocabulary)]);
      const schema = expansionSchema(input.usedQueries);
      const log = loggerFor(deps, ctx);
      const result = await runTools({
        caller: deps.caller,
        agent: 'queryExpander',
        ...callFields(ctx),
        registry,
        messages: [
          { role: 'system', content: QUERY_EXPANDER_INSTRUCTIONS },
          { role: 'user', content: renderRequest(input) },
        ],
        maxIterations: MAX_TURNS,
        maxTokens: MAX_LOOP_TOKENS,
        maxTokensPerTurn: MAX_TOKENS_PER_TURN,
        finalSchema: schema,
        schemaName: 'query_expansion',
        logger: log,
        onReask: () => deps.metrics?.structuredReasks.inc({ agent: 'queryExpander' }),
      }).catch((err: unknown) => {
        if (!(err instanceof StructuredOutputError || err instanceof ToolLoopError)) throw err;
        const why = err instanceof ToolLoopError ? { limit: err.limit, cap: err.cap } : { issues: err.issues.slice(0, 5) };
        log?.warn({ agent: 'queryExpander', error: err.name, ...why }, "query expander gave no valid answer: the round searches with the role's own terms");
        return null;
      });
      if (result === null) return fallback.expand(input, ctx);
      const answer = result.value!;
      const { filters, dropped } = finalFilters(answer.filters, await vocabulary());
      // Model output on its way to a log, the reflector's and the next expander's prompts and the embedder: scrubbed.
      if (dropped.length) log?.info({ agent: 'queryExpander', dropped: dropped.map(scrubModelText) }, 'dropped filter skills the pool does not have');
      const queries = [...new Set(answer.queries.map(scrubModelText).filter(Boolean))];
      return { queries, filters };
    },
  };
}
