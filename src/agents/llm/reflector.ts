// The LLM reflector: reads what a round produced and decides whether another round is worth paying for.
import { z } from 'zod';
import { StructuredOutputError } from '../../llm/errors.js';
import { fence } from '../../llm/fence.js';
import type { AgentCallContext, Reflector, ReflectInput, ReflectOutput } from '../types.js';
import { askAgent, DATA_RULE, keptProse, loggerFor, renderRole, scrubModelText, type LlmAgentDeps } from './prompt.js';

const MAX_HINTS = 6;

export const ReflectAnswer = z.object({
  stop: z.boolean(),
  reasoning: keptProse,
  hints: z.array(z.string()).max(MAX_HINTS),
});

export const REFLECTOR_INSTRUCTIONS = `You review one round of a candidate search for a role and decide whether another round is worth its cost.
${DATA_RULE}

You get the round's numbers: scores of newly assessed candidates (0..100), the best score and the number of strong
candidates (score at or above the threshold) before and after the round, and the queries used so far.
Stop when the target is reached, when the round added nothing and more searching is unlikely to help, or when the
pool looks exhausted. Otherwise continue, and give up to ${MAX_HINTS} short hints (skills, titles, domain terms) for new
queries that differ from the ones used.
reasoning: one or two sentences a recruiter can read later to understand the decision.
Answer with the JSON object only: {"stop": boolean, "reasoning": string, "hints": [strings]}.`;

function renderRound(input: ReflectInput): string {
  const numbers = {
    iteration: input.iteration,
    maxIterations: input.maxIterations,
    scoreThreshold: input.scoreThreshold,
    targetStrong: input.targetStrong,
    roundScores: input.roundScores,
    bestBefore: input.bestBefore,
    bestAfter: input.bestAfter,
    strongBefore: input.strongBefore,
    strongAfter: input.strongAfter,
  };
  // The numbers are ours; the queries were written by a model from user text, so they are fenced. They come back from
  // the run's checkpoint, which an older release may have written unscrubbed: scrubbed here too, as the expander does.
  return `# Round results\n${JSON.stringify(numbers)}\nQueries used so far:\n${fence('queries', input.usedQueries.map(scrubModelText).join('\n'))}`;
}

export function createLlmReflector(deps: LlmAgentDeps): Reflector {
  return {
    async reflect(input: ReflectInput, ctx: AgentCallContext): Promise<ReflectOutput> {
      try {
        const { value } = await askAgent(deps, ctx, {
          agent: 'reflector',
          instructions: REFLECTOR_INSTRUCTIONS,
          input: `${renderRole(input.role)}\n\n${renderRound(input)}`,
          schema: ReflectAnswer,
          schemaName: 'round_reflection',
          maxTokens: 500,
        });
        // The reasoning is logged and shown with the run, the hints go into the next expander prompt: model output is
        // untrusted, so it is scrubbed like user text before it reaches a log or a model.
        const hints = [...new Set(value.hints.map(scrubModelText).filter(Boolean))];
        return { stop: value.stop, reasoning: scrubModelText(value.reasoning), hints: value.stop ? [] : hints };
      } catch (err) {
        if (!(err instanceof StructuredOutputError)) throw err;
        // Continuing is safe: the arithmetic exits (target, iteration cap, budget) still bound the run.
        loggerFor(deps, ctx)?.warn({ agent: 'reflector', issues: err.issues.slice(0, 5) }, 'reflector gave no valid answer');
        return { stop: false, reasoning: `The reflector gave no valid answer after ${err.attempts} attempt(s); continuing within the iteration cap.`, hints: [] };
      }
    },
  };
}
