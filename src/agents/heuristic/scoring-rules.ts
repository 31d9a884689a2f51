// The scorer's fit rules, hard skills and domain, and the shapes every rule shares; the career rules
// (seniority, impact, logistics, trajectory) live in career-rules.ts.
import { SUBSCORE_BOUNDS, type CandidateView, type SubscoreName } from '../../matching/domain.js';
import { extractSkills, isSkillForm, normalizeSkills, relatedSkills, skillKey } from '../../text/skills.js';
import { tokenize } from '../../text/tokenize.js';
import type { RoleProfile } from './role-profile.js';
import { GENERIC_TERMS } from './role-terms.js';
import { passagesWith, type Passage, type ResumeText } from './resume-text.js';

export interface RuleResult {
  value: number;
  why: string;
  /** Passages the value rests on, with the tokens that matched in them (for quoting the right clause). */
  support: Array<{ passage: Passage; wanted: ReadonlySet<string> | null }>;
}

export interface RuleInput {
  role: RoleProfile;
  candidate: CandidateView;
  resume: ResumeText;
  referenceYear: number;
}

function bounded(name: SubscoreName, raw: number): number {
  return Math.min(SUBSCORE_BOUNDS[name], Math.max(0, Math.round(raw)));
}

function supportFor(resume: ResumeText, tokens: Iterable<string>, n: number): RuleResult['support'] {
  const wanted = new Set(tokens);
  return wanted.size === 0 ? [] : passagesWith(resume, wanted, n).map((passage) => ({ passage, wanted }));
}

// ---- hard skills --------------------------------------------------------------------------------

/** Credit for one skill: 1 when present (alias aware), 0.5 when only a related skill is, else 0. */
function skillCredit(skill: string, have: ReadonlySet<string>, resume: ResumeText): number {
  const key = skillKey(skill);
  if (have.has(key)) return 1;
  // A skill named after another holds it: "Django REST Framework" is Django, "Spring Boot" is Spring (the resume's
  // skills are read longest first, so the shorter one is not among them).
  for (const held of have) if (held.startsWith(`${key} `)) return 1;
  const parts = tokenize(skill);
  // Words alone only for a skill the vocabulary does not know: a known one was read with its case and context rules,
  // and "go-to-market", "R&D" and "react quickly" hold the words of Go, R and React.
  if (!isSkillForm(skill) && parts.length > 0 && parts.every((t) => resume.tokens.has(t))) return 1;
  return relatedSkills(skill).some((r) => have.has(skillKey(r))) ? 0.5 : 0;
}

function coverage(skills: string[], have: ReadonlySet<string>, resume: ResumeText): { share: number; found: string[] } {
  if (skills.length === 0) return { share: 0, found: [] };
  let credit = 0;
  const found: string[] = [];
  for (const skill of skills) {
    const c = skillCredit(skill, have, resume);
    credit += c;
    if (c === 1) found.push(skill);
  }
  return { share: credit / skills.length, found };
}

/** How much of the role title the resume carries: the whole phrase in one passage, else its words anywhere. */
function titleFit(role: RoleProfile, resume: ResumeText): number {
  const t = role.titleTokens;
  if (t.length === 0) return 0;
  // At word edges: "go developer" is not in "django developer", nor "ml engineer" in "html engineer".
  const phrase = ` ${t.join(' ')} `;
  if (resume.passages.some((p) => ` ${p.tokens.join(' ')} `.includes(phrase))) return 1;
  return (0.6 * t.filter((x) => resume.tokens.has(x)).length) / t.length;
}

/** Skill coverage at which the skill part saturates: few resumes name every skill a posting lists. */
const SKILL_SATURATION = 0.6;
/** Share of the role's two-word phrases at which the phrase part saturates. */
const PHRASE_SATURATION = 0.5;
const POINTS = { skills: 10, phrases: 14, title: 6 } as const;

/** Share of the role's adjacent word pairs ("core animation", "push notification") found in one passage. */
export function phraseCoverage(role: RoleProfile, resume: ResumeText): { share: number; found: string[] } {
  const found: string[] = [];
  for (const b of role.bigrams) if (resume.bigrams.has(b)) found.push(b);
  return { share: role.bigrams.size > 0 ? found.length / role.bigrams.size : 0, found };
}

export function hardSkillsRule({ role, candidate, resume }: RuleInput): RuleResult {
  const have = new Set(normalizeSkills([...candidate.skills, ...extractSkills(resume.body)]).map(skillKey));
  const { must, nice } = role.skills;
  const m = coverage(must, have, resume);
  const n = coverage(nice, have, resume);
  let skillShare: number;
  let found = [...m.found, ...n.found];
  let why: string;
  if (must.length > 0 || nice.length > 0) {
    skillShare = must.length > 0 && nice.length > 0 ? 0.75 * m.share + 0.25 * n.share : must.length > 0 ? m.share : n.share;
    const missing = must.filter((x) => !m.found.includes(x)).slice(0, 3);
    why =
      `${m.found.length}/${must.length} required and ${n.found.length}/${nice.length} nice-to-have skills` +
      (missing.length > 0 ? ` (missing ${missing.join(', ')}${must.length - m.found.length > missing.length ? ', …' : ''})` : '');
  } else {
    // No skill the vocabulary knows: the role's heaviest specific terms stand in for skills.
    const key = role.terms.filter((x) => !GENERIC_TERMS.has(x.term)).slice(0, 12).map((x) => x.term);
    found = key.filter((x) => resume.tokens.has(x));
    skillShare = key.length > 0 ? found.length / key.length : 0;
    why = `${found.length}/${key.length} of the role's key terms${found.length ? ` (${found.slice(0, 3).map(role.asWritten).join(', ')})` : ''}`;
  }
  const phrases = phraseCoverage(role, resume);
  const title = titleFit(role, resume);
  const value = bounded(
    'hardSkills',
    POINTS.skills * Math.min(1, skillShare / SKILL_SATURATION) +
      POINTS.phrases * Math.min(1, phrases.share / PHRASE_SATURATION) +
      POINTS.title * title,
  );
  const titleWhy = title === 1 ? 'the role title appears' : title > 0 ? 'part of the role title appears' : 'the role title does not appear';
  const phraseWhy = `${phrases.found.length}/${role.bigrams.size} of its key phrases${phrases.found.length ? ` (${phrases.found.slice(0, 3).map(role.asWritten).join(', ')})` : ''}`;
  // The passages that show the skills found come first; the title's words only fill what is left ("developer" is in
  // "I develop marketing campaigns", which shows no skill of a Python role).
  const bySkill = supportFor(resume, found.flatMap((x) => tokenize(x)), 2);
  const shown = new Set(bySkill.map((x) => x.passage));
  const byTitle = title > 0 && bySkill.length < 2 ? supportFor(resume, role.titleTokens.filter((t) => !GENERIC_TERMS.has(t)), 2).filter((x) => !shown.has(x.passage)) : [];
  return {
    value,
    why: `${why}; ${phraseWhy}; ${titleWhy}`,
    support: [...bySkill, ...byTitle].slice(0, 2),
  };
}

// ---- domain -------------------------------------------------------------------------------------

export interface DomainOverlap {
  /** How much of the role's specific vocabulary and phrasing the resume repeats. */
  coverage: number;
  /** How much of the resume's specific vocabulary belongs to the role: the resume is about this domain. */
  focus: number;
  /** Harmonic mean of the two. */
  fit: number;
  matched: string[];
}

export function domainOverlap(role: RoleProfile, resume: ResumeText): DomainOverlap {
  const matched: string[] = [];
  let specific = 0;
  for (const { term } of role.terms) {
    if (GENERIC_TERMS.has(term)) continue;
    specific++;
    if (resume.tokens.has(term)) matched.push(term);
  }
  const words = specific > 0 ? matched.length / specific : 0;
  let phrases = 0;
  for (const b of role.bigrams) if (resume.bigrams.has(b)) phrases++;
  const phraseShare = role.bigrams.size > 0 ? phrases / role.bigrams.size : words;
  const coverage = 0.5 * words + 0.5 * phraseShare;
  let own = 0;
  let shared = 0;
  for (const t of resume.tokens) {
    if (GENERIC_TERMS.has(t)) continue;
    own++;
    if (role.termWeight.has(t) || role.titleTokens.includes(t)) shared++;
  }
  const focus = own > 0 ? shared / own : 0;
  const fit = coverage + focus > 0 ? (2 * coverage * focus) / (coverage + focus) : 0;
  return { coverage, focus, fit, matched };
}

/** Fit at which the domain sub-score saturates: a resume written for the role reaches it. */
const DOMAIN_SATURATION = 0.7;

export function domainRule({ role, resume }: RuleInput): RuleResult {
  if (role.terms.length === 0) return { value: bounded('domain', 10), why: 'the role has no description to compare with', support: [] };
  const { coverage, focus, fit, matched } = domainOverlap(role, resume);
  const value = bounded('domain', 20 * Math.min(1, fit / DOMAIN_SATURATION));
  const top = matched.slice(0, 5).map(role.asWritten);
  const why =
    `repeats ${Math.round(100 * coverage)}% of the role's vocabulary and phrasing${top.length ? ` (${top.join(', ')})` : ''}; ` +
    `${Math.round(100 * focus)}% of the resume's own vocabulary is the role's`;
  return { value, why, support: supportFor(resume, matched.slice(0, 8), 2) };
}
