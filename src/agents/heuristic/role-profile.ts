// A role read once for scoring: skills, title tokens, weighted description vocabulary, years asked for.
import { placeParts, placeTokens } from './places.js';
import { fairDescription, fairTitle } from './protected-criteria.js';
import type { RoleSpec, Seniority } from '../../matching/domain.js';
import { skillKey } from '../../text/skills.js';
import { tokenize } from '../../text/tokenize.js';
import { FUNCTION_TERMS, GENERIC_TERMS, descriptionTerms, roleSkills, surfaceForms, type RoleSkills, type WeightedTerm } from './role-terms.js';

export interface YearsWanted {
  min: number;
  max: number | null;
}

export interface RoleProfile {
  skills: RoleSkills;
  mustKeys: string[];
  niceKeys: string[];
  titleTokens: string[];
  terms: WeightedTerm[];
  termWeight: ReadonlyMap<string, number>;
  totalTermWeight: number;
  /** Adjacent description token pairs that are not both boilerplate: phrases a matching resume repeats. */
  bigrams: ReadonlySet<string>;
  /** Non-generic title and description tokens: what makes a passage about this role. */
  topical: ReadonlySet<string>;
  years: YearsWanted | null;
  /** The role's place as placeTokens reads it: accents off, so "Zürich" meets "Zurich". */
  locationTokens: string[];
  /** The role's location in its comma-separated parts (places.ts, placeParts): its first part is the place. */
  locationParts: string[][];
  remoteOk: boolean;
  /** The role says explicitly that it is not remote. */
  onSite: boolean;
  /** A token or token pair as the role wrote it ("mobil app" -> "mobile apps"), for rationales people read. */
  asWritten: (tokens: string) => string;
}

const SENIORITY_YEARS: Record<Seniority, number> = { junior: 0, mid: 2, senior: 5, staff: 8, principal: 10 };
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
// "3 to 7 years", "5+ years", "five (5) years", "minimum 2 yrs": the first number is the floor. Also "5 Jahre",
// "3 bis 5 Jahre", "5 años", "de 3 a 5 años", "5 ans", "3 à 5 ans", "5 anos", "5 anni".
// Each optional part takes the spaces before it and starts with a non-space: one way to match a run of spaces, so a
// number before 100 KB of them costs one pass, not one for every way to share the run between parts.
// A range may name its unit twice: "2 Yrs - 4 Yrs" is 2 to 4, not 4.
const YEARS_RE =
  /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)(?:\s*\(\s*\d{1,2}\s*\))?(?:\s*(?:\+|plus))?(?:(?:\s*(?:years?|yrs?))?\s*(?:-|–|to|bis|a|à)\s*(\d{1,2}))?(?:\s*\+)?\s*(?:years?|yrs?|jahr(?:e|en)?|años?|anos?|ans|anni|anno)(?![\p{L}\d])/giu;

// Years that are about something else: a bond, a contract, a salary period, a posting date; and in German, Spanish,
// French, Portuguese and Italian a contract, its length, a probation, an age.
// And the years of the company or its team ("Our team has 12 years of experience in payments").
const NOT_EXPERIENCE_RE =
  /\b(?:bond|contract|duration|stipend|salary|probation|notice|warranty|ago|published|posted|old|age|our (?:team|company|firm|group)|in business|founded)\b/i;
const NOT_EXPERIENCE_ELSEWHERE_RE =
  /(?<![\p{L}\d])(?:vertrag\p{L}*|befristet\p{L}*|probezeit|jahre?\s+alt|contrat|contrato|contratto|durée|duración|duração|durata|âge|edad|idade|età)(?![\p{L}\d])/iu;
const EXPERIENCE_RE = /\b(?:experience|exp|expertise|background|track record|hands[- ]on)\b/i;
// "Berufserfahrung", "Erfahrung", "experiencia", "expérience", "experiência", "esperienza".
const EXPERIENCE_ELSEWHERE_RE = /(?<![\p{L}\d])(?:\p{L}*erfahrung|experiencia|expérience|experiência|esperienza)(?![\p{L}\d])/iu;
const inExperienceContext = (text: string): boolean => EXPERIENCE_RE.test(text) || EXPERIENCE_ELSEWHERE_RE.test(text);

/** The years a role asks for: matches in an experience context win; bonds and contract lengths never count. */
export function yearsAsked(text: string): YearsWanted | null {
  let best: YearsWanted | null = null;
  let bestInContext = false;
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    if (/:\s*$/.test(line.trim())) section = line;
    if (NOT_EXPERIENCE_RE.test(line) || NOT_EXPERIENCE_ELSEWHERE_RE.test(line)) continue;
    const inContext = inExperienceContext(line) || inExperienceContext(section);
    for (const m of line.matchAll(YEARS_RE)) {
      const word = (m[1] ?? '').toLowerCase();
      const min = NUMBER_WORDS[word] ?? Number(word);
      if (!Number.isFinite(min) || min > 15) continue;
      const max = m[2] === undefined ? null : Number(m[2]);
      const wanted = { min, max: max !== null && max >= min ? max : null };
      // Prefer a stated experience requirement; among equals, the larger floor.
      if (best === null || (inContext && !bestInContext) || (inContext === bestInContext && min > best.min)) {
        best = wanted;
        bestInContext = inContext;
      }
    }
  }
  return best;
}

function bigramsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split(/[\n.;!?]+/)) {
    const tokens = tokenize(line).filter((t) => !FUNCTION_TERMS.has(t));
    for (let i = 1; i < tokens.length; i++) {
      const a = tokens[i - 1]!;
      const b = tokens[i]!;
      if (GENERIC_TERMS.has(a) && GENERIC_TERMS.has(b)) continue;
      out.add(`${a} ${b}`);
    }
  }
  return out;
}

function buildProfile(role: RoleSpec): RoleProfile {
  const skills = roleSkills(role);
  const terms = descriptionTerms(role);
  const titleTokens = [...new Set(tokenize(fairTitle(role)))];
  const stated = role.minYearsExperience !== null ? { min: role.minYearsExperience, max: null } : yearsAsked(fairDescription(role));
  const floor = role.seniority ? SENIORITY_YEARS[role.seniority] : null;
  let years: YearsWanted | null = stated;
  if (floor !== null && (years === null || floor > years.min)) years = { min: floor, max: null };
  // No ceiling but one the role states ("3-5 years"): a junior role implied none. "Over-qualified" for years the role
  // never capped is a common stand-in for age (ADEA; EEOC guidance), and the candidate's years are no fault.
  let surface: Map<string, string> | null = null;
  const topical = new Set([...titleTokens, ...terms.map((t) => t.term)].filter((t) => !GENERIC_TERMS.has(t)));
  return {
    skills,
    mustKeys: skills.must.map(skillKey),
    niceKeys: skills.nice.map(skillKey),
    titleTokens,
    terms,
    termWeight: new Map(terms.map((t) => [t.term, t.weight])),
    totalTermWeight: terms.reduce((sum, t) => sum + t.weight, 0),
    bigrams: bigramsOf(fairDescription(role)),
    topical,
    years,
    locationTokens: role.location ? [...new Set(placeTokens(role.location))] : [],
    locationParts: role.location ? placeParts(role.location) : [],
    remoteOk: role.remote === true,
    onSite: role.remote === false,
    asWritten: (tokens) => {
      const forms = surface ?? (surface = surfaceForms(`${fairTitle(role)}\n${fairDescription(role)}`));
      return tokens.split(' ').map((t) => forms.get(t) ?? t).join(' ');
    },
  };
}

// Scoring a batch reads the same role many times; a small cache keyed by the role's content keeps it cheap
// without depending on object identity.
const CACHE_SIZE = 32;
const cache = new Map<string, RoleProfile>();

export function roleProfile(role: RoleSpec): RoleProfile {
  const key = JSON.stringify(role);
  const hit = cache.get(key);
  if (hit) return hit;
  const profile = buildProfile(role);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, profile);
  return profile;
}
