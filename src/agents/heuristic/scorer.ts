// The heuristic scorer: six rule-based sub-scores from the scrubbed resume text, each with quoted evidence.
//
// Name-blind by construction: it reads only the candidate view (scrubbed text, skills, years, location),
// never an id or a name. Passages that address the screener ("ignore previous instructions", "</resume>")
// are dropped before any rule runs, so they cannot move a score.
import { SUBSCORE_NAMES, totalOf, type Evidence, type SubscoreName, type Subscores } from '../../matching/domain.js';
import type { AgentCallContext, Scorer, ScoreInput, ScoreOutcome } from '../types.js';
import { impactRule, logisticsRule, referenceYearFor, seniorityRule, trajectoryRule } from './career-rules.js';
import { readResume, quoteFrom } from './resume-text.js';
import { roleProfile } from './role-profile.js';
import { domainRule, hardSkillsRule, type RuleInput, type RuleResult } from './scoring-rules.js';

const RULES: Record<SubscoreName, (input: RuleInput) => RuleResult> = {
  hardSkills: hardSkillsRule,
  domain: domainRule,
  seniority: seniorityRule,
  impact: impactRule,
  logistics: logisticsRule,
  trajectory: trajectoryRule,
};

const LABELS: Record<SubscoreName, string> = {
  hardSkills: 'Skills',
  domain: 'Domain',
  seniority: 'Seniority',
  impact: 'Impact',
  logistics: 'Logistics',
  trajectory: 'Trajectory',
};

export interface HeuristicScorerOptions {
  /** The year "present" in a date range means; fixed in tests so years of experience do not drift. */
  referenceYear?: () => number;
}

export function createHeuristicScorer(options: HeuristicScorerOptions = {}): Scorer {
  return {
    async score({ role, candidate }: ScoreInput, ctx?: AgentCallContext): Promise<ScoreOutcome> {
      // Copy the view's fields by name: nothing else on the object (an id, a name) reaches a rule.
      const view = {
        id: '',
        headline: candidate.headline,
        location: candidate.location,
        yearsExperience: candidate.yearsExperience,
        skills: candidate.skills,
        text: candidate.text,
      };
      const resume = readResume(view.text);
      const input: RuleInput = { role: roleProfile(role), candidate: view, resume, referenceYear: referenceYearFor(options.referenceYear, ctx) };
      const subscores = {} as Subscores;
      const evidence: Evidence[] = [];
      const reasons: string[] = [];
      for (const name of SUBSCORE_NAMES) {
        const result = RULES[name](input);
        subscores[name] = result.value;
        reasons.push(`${LABELS[name]} ${result.value}: ${result.why}`);
        const quotes = new Set<string>();
        for (const { passage, wanted } of result.support) quotes.add(quoteFrom(passage, wanted));
        for (const quote of quotes) evidence.push({ subscore: name, quote, verified: view.text.includes(quote) });
      }
      return { status: 'scored', score: { subscores, totalScore: totalOf(subscores), rationale: `${reasons.join('. ')}.`, evidence } };
    },
  };
}
