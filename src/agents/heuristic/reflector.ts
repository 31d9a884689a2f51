// The heuristic reflector: stops the loop when a round stopped paying off, and hints what to try next.
import type { ReflectInput, ReflectOutput, Reflector } from '../types.js';
import { unusedRoleTerms } from './role-terms.js';

/** How many hint terms the next round's expansion gets: enough for one or two fresh queries. */
const MAX_HINTS = 6;

export function createHeuristicReflector(): Reflector {
  return {
    async reflect(input: ReflectInput): Promise<ReflectOutput> {
      const decision = decide(input);
      const hints = decision.stop ? [] : unusedRoleTerms(input.role, input.usedQueries).slice(0, MAX_HINTS);
      return { stop: decision.stop, reasoning: decision.reasoning, hints };
    },
  };
}

function decide(input: ReflectInput): { stop: boolean; reasoning: string } {
  const { iteration, maxIterations, scoreThreshold, targetStrong, roundScores, bestBefore, bestAfter, strongBefore, strongAfter } = input;
  const round = `Round ${iteration} of ${maxIterations}`;
  if (roundScores.length === 0) {
    return { stop: true, reasoning: `${round} scored no new candidates, so another round would search an exhausted pool.` };
  }
  const added = strongAfter - strongBefore;
  const roundBest = Math.max(...roundScores);
  const scored = `scored ${roundScores.length} new candidate${roundScores.length === 1 ? '' : 's'} (best ${roundBest})`;
  const strong = `${strongAfter} of ${targetStrong} wanted candidates now score at least ${scoreThreshold}`;
  if (strongAfter >= targetStrong) {
    return { stop: true, reasoning: `${round} ${scored}; ${strong}, which is enough.` };
  }
  const plateaued = bestBefore !== null && (bestAfter ?? Number.NEGATIVE_INFINITY) <= bestBefore;
  if (added <= 0 && plateaued) {
    return {
      stop: true,
      reasoning: `${round} ${scored} but added no strong candidate and the best score stayed at ${bestBefore}; ${strong}. Stopping.`,
    };
  }
  if (iteration >= maxIterations) {
    return { stop: true, reasoning: `${round} ${scored}; ${strong}. That was the last allowed round.` };
  }
  const progress =
    added > 0
      ? `added ${added} strong candidate${added === 1 ? '' : 's'}`
      : `raised the best score from ${bestBefore ?? 'none'} to ${bestAfter ?? 'none'}`;
  return { stop: false, reasoning: `${round} ${scored} and ${progress}; ${strong}, so another round is worth it.` };
}
