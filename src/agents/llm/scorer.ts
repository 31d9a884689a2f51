// The LLM scorer: six bounded integer sub-scores with quoted evidence; the total is summed by code, never asked for.
import { z } from 'zod';
import { isContextOverflow, StructuredOutputError } from '../../llm/errors.js';
import { SUBSCORE_BOUNDS, SUBSCORE_NAMES, totalOf, type Evidence, type SubscoreName, type Subscores } from '../../matching/domain.js';
import type { AgentCallContext, Scorer, ScoreInput, ScoreOutcome } from '../types.js';
import { askAgent, DATA_RULE, loggerFor, renderCandidate, fitsWindow, keptProse, renderRole, resumeRoom, scrubModelText, type LlmAgentDeps } from './prompt.js';

const bounded = (name: SubscoreName) => z.number().int().min(0).max(SUBSCORE_BOUNDS[name]);
const quotes = z.array(z.string()).max(3);

/**
 * The answer contract. Every sub-score is required and bounded exactly as the API documents; there is no
 * total anywhere in it, so the model is never asked to add (an extra key it sends anyway is dropped).
 */
export const ScoreAnswer = z.object({
  subscores: z.object({
    hardSkills: bounded('hardSkills'),
    domain: bounded('domain'),
    seniority: bounded('seniority'),
    impact: bounded('impact'),
    logistics: bounded('logistics'),
    trajectory: bounded('trajectory'),
  }),
  rationale: keptProse,
  evidence: z.object({
    hardSkills: quotes,
    domain: quotes,
    seniority: quotes,
    impact: quotes,
    logistics: quotes,
    trajectory: quotes,
  }),
});
export type ScoreAnswer = z.output<typeof ScoreAnswer>;

const bounds = SUBSCORE_NAMES.map((n) => `${n} 0..${SUBSCORE_BOUNDS[n]}`).join(', ');

export const SCORER_INSTRUCTIONS = `You assess how well one candidate fits one role, for a recruiter.
${DATA_RULE}

Give six sub-scores, each an integer within its bounds: ${bounds}.
- hardSkills: the role's must-have and nice-to-have skills shown in real work.
- domain: experience in the role's industry or problem space.
- seniority: level and years against what the role asks.
- impact: measurable outcomes, ownership, scope.
- logistics: location, remote fit and other practical constraints.
- trajectory: direction and pace of the career relative to this role.
Judge only what the resume shows; missing evidence scores low, never high. Do not output a total.
rationale: two or three sentences a recruiter can check.
evidence: for each sub-score, up to 3 short passages copied verbatim from the resume that support it (an empty list when there is none). Never paraphrase inside a quote.
Answer with the JSON object only.`;

// An answer is six integers, a few sentences and up to 18 short quotes.
const MAX_ANSWER_TOKENS = 1200;
// The least of a resume a score is made from, when the resume is longer.
const MIN_RESUME_CHARS = 2000;

/** Whitespace, case and typographic quotes do not make a quote unfaithful; anything else does. */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201A\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u2033]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Models frame quotes in quote marks and ellipses; the frame is not part of the quote. */
function unframe(quote: string): string {
  return quote.trim().replace(/^(?:["'\u201C\u201D\u2018\u2019]|\.\.\.|…)+|(?:["'\u201C\u201D\u2018\u2019]|\.\.\.|…)+$/g, '').trim();
}

/** Every quote is kept, with `verified` saying whether it really occurs in the scrubbed text the model saw. */
export function verifyEvidence(evidence: ScoreAnswer['evidence'], text: string): Evidence[] {
  const haystack = normalise(text);
  const out: Evidence[] = [];
  for (const subscore of SUBSCORE_NAMES) {
    const seen = new Set<string>();
    for (const raw of evidence[subscore]) {
      const quote = unframe(raw);
      const key = normalise(quote);
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      // A verified quote is the scrubbed resume's own words; one the model made up is scrubbed as its other prose is.
      const verified = haystack.includes(key);
      out.push({ subscore, quote: verified ? quote : scrubModelText(quote), verified });
    }
  }
  return out;
}

export function createLlmScorer(deps: LlmAgentDeps): Scorer {
  return {
    async score(input: ScoreInput, ctx: AgentCallContext): Promise<ScoreOutcome> {
      // Role first, candidate last: the prefix up to the candidate is the same for every call of the run.
      const head = `${renderRole(input.role)}\n\n# Candidate to assess\n`;
      let prompt = head + renderCandidate(input.candidate);
      // A resume longer than the model's context window leaves room for is cut (resumeRoom).
      if (!fitsWindow(deps, 'scorer', SCORER_INSTRUCTIONS + prompt, MAX_ANSWER_TOKENS)) {
        const room = resumeRoom(deps, 'scorer', SCORER_INSTRUCTIONS + head + renderCandidate({ ...input.candidate, text: '' }), MAX_ANSWER_TOKENS);
        // A role so long that little of the resume would fit leaves the candidate unscored: a score of a resume's
        // first lines, or of none, would read as a judgement of the whole.
        if (room < Math.min(MIN_RESUME_CHARS, input.candidate.text.length)) {
          return { status: 'unscored', reason: "the role leaves too little room for the resume in the model's context window" };
        }
        prompt = head + renderCandidate(input.candidate, { maxResumeChars: room });
      }
      let answer: ScoreAnswer;
      try {
        const result = await askAgent(deps, ctx, {
          agent: 'scorer',
          instructions: SCORER_INSTRUCTIONS,
          input: prompt,
          schema: ScoreAnswer,
          schemaName: 'candidate_score',
          maxTokens: MAX_ANSWER_TOKENS,
          candidateIds: [input.candidate.id],
        });
        answer = result.value;
      } catch (err) {
        // Only a model that kept answering wrongly makes a candidate unscored; budget, deadline and
        // provider failures propagate so the run stops or retries with its own named outcome.
        // candidates_unscored_total is counted where the entry is written, for every engine alike.
        // A server that still finds the request too long for its window (its tokens are not ours) refused this
        // candidate only: the others fit.
        if (isContextOverflow(err)) {
          loggerFor(deps, ctx)?.warn({ agent: 'scorer', candidateId: input.candidate.id }, 'candidate left unscored: too long for the model');
          return { status: 'unscored', reason: "the resume does not fit the model's context window" };
        }
        if (!(err instanceof StructuredOutputError)) throw err;
        loggerFor(deps, ctx)?.warn({ agent: 'scorer', candidateId: input.candidate.id, attempts: err.attempts, issues: err.issues }, 'candidate left unscored');
        return { status: 'unscored', reason: `no valid score after ${err.attempts} attempt(s): ${err.issues.slice(0, 3).join('; ')}` };
      }
      const subscores: Subscores = { ...answer.subscores };
      return {
        status: 'scored',
        score: {
          subscores,
          // totalOf re-checks every bound and throws on a missing part: a defect here can never become a score.
          totalScore: totalOf(subscores),
          // Model-written prose that the shortlist serves: scrubbed, as the reflector's reasoning is.
          rationale: scrubModelText(answer.rationale),
          evidence: verifyEvidence(answer.evidence, input.candidate.text),
        },
      };
    },
  };
}
