// The heuristic reranker: a transparent feature score per retrieved candidate, best first.
//
// Features: retrieval's fused score (normalised within the batch), the share of the role's vocabulary the
// resume carries (weighted by rarity within the batch), must-have and nice-to-have skill coverage, years
// against the role's floor. Ties fall to the fused score, then the id, so the order is deterministic.
import type { RetrievedCandidate } from '../../matching/domain.js';
import { extractSkills, normalizeSkills, relatedSkills, skillKey } from '../../text/skills.js';
import type { AgentCallContext, Reranker, RerankInput, RerankOutput } from '../types.js';
import { readResume, type ResumeText } from './resume-text.js';
import { candidateYears, referenceYearFor } from './career-rules.js';
import { roleProfile, type RoleProfile } from './role-profile.js';

export const RERANK_WEIGHTS = { fused: 0.45, vocabulary: 0.3, must: 0.15, nice: 0.05, years: 0.05 } as const;

export interface RerankFeatures {
  id: string;
  fused: number;
  vocabulary: number;
  must: number;
  nice: number;
  years: number;
  total: number;
}

function skillShare(skills: string[], have: ReadonlySet<string>): number {
  if (skills.length === 0) return 0;
  let credit = 0;
  for (const s of skills) {
    if (have.has(skillKey(s))) credit += 1;
    else if (relatedSkills(s).some((r) => have.has(skillKey(r)))) credit += 0.5;
  }
  return credit / skills.length;
}

/** Role terms weighted by how rare they are in this batch: a term every candidate has separates no one. */
function vocabularyShares(profile: RoleProfile, resumes: ResumeText[]): number[] {
  const n = resumes.length;
  const weights = profile.terms.map(({ term, weight }) => {
    const df = resumes.filter((r) => r.tokens.has(term)).length;
    return { term, w: weight * Math.log(1 + (n + 1) / (df + 0.5)) };
  });
  const total = weights.reduce((s, x) => s + x.w, 0);
  const shares = resumes.map((r) => (total > 0 ? weights.reduce((s, x) => s + (r.tokens.has(x.term) ? x.w : 0), 0) / total : 0));
  const best = Math.max(0, ...shares);
  return shares.map((s) => (best > 0 ? s / best : 0));
}

export function rerankFeatures(input: RerankInput, referenceYear: number): RerankFeatures[] {
  const profile = roleProfile(input.role);
  const resumes = input.candidates.map((c) => readResume(c.candidate.text));
  const vocab = vocabularyShares(profile, resumes);
  const fusedValues = input.candidates.map((c) => (Number.isFinite(c.fusedScore) ? c.fusedScore : 0));
  const lo = Math.min(...fusedValues);
  const hi = Math.max(...fusedValues);
  const skillsGiven = profile.skills.must.length + profile.skills.nice.length > 0;
  return input.candidates.map((c: RetrievedCandidate, i) => {
    const resume = resumes[i]!;
    const have = new Set(normalizeSkills([...c.candidate.skills, ...extractSkills(resume.body)]).map(skillKey));
    const fused = hi > lo ? (fusedValues[i]! - lo) / (hi - lo) : 1;
    const must = skillsGiven ? skillShare(profile.skills.must, have) : 0;
    const nice = skillsGiven ? skillShare(profile.skills.nice, have) : 0;
    let years = 0.5;
    if (profile.years !== null) {
      const found = candidateYears({ role: profile, candidate: c.candidate, resume, referenceYear });
      if (found !== null) years = profile.years.min === 0 ? 1 : Math.min(1, found.years / profile.years.min);
    }
    const w = RERANK_WEIGHTS;
    const total = w.fused * fused + w.vocabulary * vocab[i]! + w.must * must + w.nice * nice + w.years * years;
    return { id: c.id, fused: fusedValues[i]!, vocabulary: vocab[i]!, must, nice, years, total };
  });
}

export interface HeuristicRerankerOptions {
  /** The year "present" in a date range means; fixed in tests. */
  referenceYear?: () => number;
}

export function createHeuristicReranker(options: HeuristicRerankerOptions = {}): Reranker {
  return {
    async rerank(input: RerankInput, ctx?: AgentCallContext): Promise<RerankOutput> {
      const limit = Math.max(0, Math.floor(input.limit));
      const seen = new Set<string>();
      const unique = input.candidates.filter((c) => !seen.has(c.id) && seen.add(c.id));
      if (limit === 0 || unique.length === 0) return { orderedIds: [] };
      const features = rerankFeatures({ ...input, candidates: unique }, referenceYearFor(options.referenceYear, ctx));
      features.sort((a, b) => b.total - a.total || b.fused - a.fused || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return { orderedIds: features.slice(0, limit).map((f) => f.id) };
    },
  };
}
