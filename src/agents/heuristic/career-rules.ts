// The scorer's rules about the career rather than the role's vocabulary: seniority, impact, logistics, trajectory.
import { SUBSCORE_BOUNDS, type SubscoreName } from '../../matching/domain.js';
import type { AgentCallContext } from '../types.js';
import { placeParts, placeTokens, samePlace } from './places.js';
import type { Passage, ResumeText } from './resume-text.js';
import { GENERIC_TERMS } from './role-terms.js';
import type { RuleInput, RuleResult } from './scoring-rules.js';

function bounded(name: SubscoreName, raw: number): number {
  return Math.min(SUBSCORE_BOUNDS[name], Math.max(0, Math.round(raw)));
}

const support = (passages: Passage[]): RuleResult['support'] => passages.map((passage) => ({ passage, wanted: null }));

// ---- job titles ---------------------------------------------------------------------------------

const TITLE_NOUN_RE =
  /\b(?:developer|engineer|administrator|admin|manager|analyst|architect|designer|consultant|specialist|scientist|programmer|lead|intern|director|head|officer|technician|tester|dba|devops)\b/i;
const LEVELS: Array<[RegExp, number]> = [
  [/\b(?:chief|vp|vice president|director|head of|cto)\b/i, 5],
  [/\b(?:lead|principal|staff|architect|manager)\b/i, 4],
  [/\b(?:senior|sr\.?)\b/i, 3],
  [/\b(?:junior|jr\.?|associate|assistant|graduate)\b/i, 1],
  [/\b(?:intern|internship|trainee|apprentice)\b/i, 0],
];

function level(title: string): number {
  for (const [re, n] of LEVELS) if (re.test(title)) return n;
  return 2;
}

// "Flutter Developer Certification", "BSc Software Engineering": credentials, not jobs held.
const NOT_A_JOB_RE = /\b(?:certifi\w*|certificate|course|degree|bachelor\w*|master's|masters|diploma|university|college|b\.?sc|m\.?sc)\b/i;

/** Job titles: short passages naming a job, latest first as resumes list them. */
export function jobTitles(resume: ResumeText): Passage[] {
  return resume.passages
    .filter((p) => p.text.length <= 90 && TITLE_NOUN_RE.test(p.text) && !/[.!?]$/.test(p.text) && !NOT_A_JOB_RE.test(p.text))
    .slice(0, 6);
}

// What a title says about years when the resume states none: "Senior" means about five.
const YEARS_BY_LEVEL: Record<number, number | null> = { 0: 0, 1: 1, 2: null, 3: 5, 4: 7, 5: 10 };

// ---- seniority ----------------------------------------------------------------------------------

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20,
};
// Each optional part takes the spaces before it: one way to match a run of spaces, so "5" before 100 KB of them is
// one pass, not one for every way to share the run.
// The units in German, Spanish, Portuguese, French and Italian too, as the role side reads them (role-profile.ts).
const STATED_YEARS_RE =
  /\b(\d{1,2}(?:\.\d)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)(?:\s*\+)?(?:\s*-)?\s*(years?|yrs?|months?|mos?|mths?|jahr(?:e|en)?|años?|anos?|ans|anni|anno|monat(?:e|en)?|meses|mois|mesi)(?![\p{L}\d])/giu;
const MONTHS_RE = /^(?:mo|mth|mes)/i;
// A section heading: a short line naming a part of the resume ("Education:", "WORK EXPERIENCE").
const HEADING_RE =
  /^(?:[A-Za-z][A-Za-z &/]{2,38}:|(?:education|academics?|qualifications?|certifications?|courses?|training|(?:work |professional )?experience|employment(?: history)?|work history|skills|technical skills|projects|summary|profile|objective|achievements|kpis|awards|languages|interests|references)\s*:?)$/i;
const EDUCATION_HEADING_RE = /\b(?:education|academic|qualifications?|certifications?|courses?|training)\b/i;
// "2019 - 2021", "Jan 2019 - Mar 2021", "01/2019 – 12/2021", "2019-01 – 2021-12", "03.2019 – heute", "2017 - actualidad",
// "Jun-2016 to Present", "Sept.2012 – 2015".
// Not after a digit, dot, slash or hyphen and not before a letter or digit: "0301/2012-2018" and "2012-20189" are ids.
const RANGE_SEPARATOR = '(?:-|–|—|to|until|till|bis|hasta|a|al|à|até)';
const NOW_WORDS = "present|current|now|today|date|heute|aktuell|jetzt|actualidad|presente|hoy|actual|atual|aujourd['’]hui|présent|oggi|attuale";
const RANGE_RE = new RegExp(
  `(?<![\\d./-])(?:\\d{1,2}[./]|\\p{L}{3,9}[-/.])?((?:19|20)\\d{2})(?:[./-]\\d{1,2}(?!\\d))?\\s*${RANGE_SEPARATOR}\\s*(?:\\p{L}{3,9}\\.?\\s+|\\d{1,2}[./])?` +
    `((?:19|20)\\d{2}|${NOW_WORDS})(?![\\p{L}\\d])`,
  'giu',
);
const RANGE_ANYWHERE_RE = new RegExp(RANGE_RE.source, 'iu');
// "Since 2019", "seit 03/2019", "(depuis 2019)", "desde 2019": a range open to the present, where a date column or a
// bracket puts it, as "2019 - present" would be; "a member since 2008" in prose is no job. Not before an end
// ("desde 2015 hasta 2018" reads as the range, not as one still running).
const SINCE_RE = new RegExp(
  `(?:^[\\s•*·–-]*|[(|]\\s*)(?:since|seit|depuis|desde)\\s+(?:\\p{L}{3,9}\\.?\\s+|\\d{1,2}[./])?((?:19|20)\\d{2})(?:[./-]\\d{1,2}(?!\\d))?` +
    `(?![\\p{L}\\d]|[./-]\\d|\\s*(?:${RANGE_SEPARATOR}|jusqu)(?!\\p{L}))`,
  'giu',
);
const EDUCATION_RE = /\b(?:bachelor|master|degree|university|college|school|diploma|b\.?sc?|m\.?sc?|ph\.?d|gpa|coursework|graduat\w*)\b/i;
// Years that are someone's age, or a child's ("I am 24 years old", "kids aged 4 and 7 years"): not of work.
const AGE_BEFORE_RE = /\b(?:aged?|child(?:ren)?|kids?|sons?|daughters?|toddlers?)\b[^.;\n]{0,30}$/i;
const AGE_AFTER_RE = /^\s*(?:-\s*)?(?:old|of age)\b/i;
// Years that are no one's work: "10 years ago", "a family business with 30 years of history".
const NOT_WORK_AFTER_RE = /^\s*(?:ago|of (?:history|tradition|existence)|in business)\b/i;
// Time away from work, as a resume discloses it ("Maternity leave, 2019 - 2021", "Career break (family care) 2012 -
// 2016"): no work years, and no gap counted against anyone either.
const AWAY_RE = /\b(?:(?:maternity|paternity|parental|family|medical|sick|caregiving|carer'?s?) leave|career (?:break|gap|pause)|sabbatical|caregiving|caring for)\b/i;

// A job's own length, as a list of jobs gives it: "Backend Developer, Acme (3 years)", "Jan 2019 - Present · 3 yrs 2 mos",
// "Duration: 18 months". Each job's is a part of the whole, not a claim of it: they are summed. On a line that names a
// job (a title, a date range) or says it is a duration: "Python (5 years), Java (3 years)" are a skill's years, which
// overlap, and stay claims.
const SKILLS_LINE_RE = /^\W*(?:(?:technical|key|core|main)\s+)?(?:skills?|tech(?:nical)?\s+stack|technolog(?:y|ies)|tools|competenc(?:y|ies)|kenntnisse|fähigkeiten|competencias|habilidades|compétences|competenze)\b[^:\n]{0,20}:/iu;
const DURATION_BEFORE_RE = /(?:\(|·|\||\b(?:duration|dauer|duración|duracion|durée|durata)\s*:)\s*$/iu;
const DURATION_WORD_RE = /\b(?:duration|dauer|duración|duracion|durée|durata)\s*:/iu;
// ...unless the passage says it is the experience ("(5 years of experience)" is a claim of the whole).
const EXPERIENCE_RE = /\b(?:experience|exp\.|erfahrung|berufserfahrung|experiencia|expérience|experiência|esperienza)/iu;

export interface YearsFound {
  years: number;
  from: 'field' | 'stated' | 'durations' | 'dates' | 'titles';
  passages: Passage[];
}

/**
 * The year "present" in a date range means: fixed (tests), else the year the run started, so a run that crosses New
 * Year, a resumed attempt and a replay read a resume alike; the current year outside a run.
 */
export function referenceYearFor(fixed: (() => number) | undefined, ctx: Pick<AgentCallContext, 'startedAt'> | undefined): number {
  return fixed?.() ?? new Date(ctx?.startedAt ?? Date.now()).getUTCFullYear();
}

/** The years date ranges cover, each year once however many ranges hold it. */
function mergedYears(ranges: Array<[number, number]>): number {
  let total = 0;
  let cursor = -Infinity;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const from = Math.max(start, cursor);
    if (end > from) total += end - from;
    cursor = Math.max(cursor, end);
  }
  return total;
}

/** Years of experience: the candidate's own field, else the larger of "N years" claims and merged date ranges. */
export function candidateYears(input: RuleInput): YearsFound | null {
  const { candidate, resume, referenceYear } = input;
  if (candidate.yearsExperience !== null) return { years: candidate.yearsExperience, from: 'field', passages: [] };
  let stated = -1;
  let statedIn: Passage | null = null;
  let durations = 0;
  let datedDurations = 0;
  // The longest single length beside dates, and the length being read ("3 yrs 2 mos" is one in two parts).
  let longestDated = 0;
  let lastLength = 0;
  const datedRanges: Array<[number, number]> = [];
  const durationPassages: Passage[] = [];
  const ranges: Array<[number, number]> = [];
  const rangePassages: Passage[] = [];
  let inEducation = false;
  for (const p of resume.passages) {
    if (HEADING_RE.test(p.text)) inEducation = EDUCATION_HEADING_RE.test(p.text);
    // Study years are not work years, and nor is time away: neither as stated years nor as date ranges.
    if (inEducation || EDUCATION_RE.test(p.text) || AWAY_RE.test(p.text)) continue;
    // The end of the last job length read in this passage: "3 yrs 2 mos" is one length in two parts.
    let durationEnd = -1;
    const dated = RANGE_ANYWHERE_RE.test(p.text);
    // A list of skills with their years ("Skills: Python (5 years), DevOps (3 years)") is claims, not jobs.
    const jobLine = !SKILLS_LINE_RE.test(p.text) && (TITLE_NOUN_RE.test(p.text) || DURATION_WORD_RE.test(p.text) || dated);
    for (const m of p.text.matchAll(STATED_YEARS_RE)) {
      const at = m.index ?? 0;
      const after = p.text.slice(at + m[0].length);
      if (AGE_BEFORE_RE.test(p.text.slice(Math.max(0, at - 40), at)) || AGE_AFTER_RE.test(after) || NOT_WORK_AFTER_RE.test(after)) continue;
      const raw = (m[1] ?? '').toLowerCase();
      const n = (NUMBER_WORDS[raw] ?? Number(raw)) / (MONTHS_RE.test(m[2] ?? '') ? 12 : 1);
      if (n > 45) continue;
      const continues = durationEnd >= 0 && /^\s*(?:,|and|&|und|y|et|e)?\s*$/iu.test(p.text.slice(durationEnd, at));
      if (continues || (jobLine && DURATION_BEFORE_RE.test(p.text.slice(Math.max(0, at - 20), at)) && !EXPERIENCE_RE.test(p.text))) {
        durations += n;
        lastLength = continues ? lastLength + n : n;
        if (dated) {
          datedDurations += n;
          longestDated = Math.max(longestDated, lastLength);
        }
        durationEnd = at + m[0].length;
        if (durationPassages.at(-1) !== p && durationPassages.length < 2) durationPassages.push(p);
        continue;
      }
      if (n > stated) {
        stated = n;
        statedIn = p;
      }
    }
    const lengthHere = durationEnd >= 0;
    for (const m of [...p.text.matchAll(RANGE_RE), ...p.text.matchAll(SINCE_RE)]) {
      const start = Number(m[1]);
      const endRaw = (m[2] ?? 'present').toLowerCase();
      const end = /^\d+$/.test(endRaw) ? Number(endRaw) : referenceYear;
      if (end < start || end > referenceYear + 1) continue;
      ranges.push([start, Math.max(end, start)]);
      if (lengthHere) datedRanges.push([start, Math.max(end, start)]);
      if (rangePassages.length < 2) rangePassages.push(p);
    }
  }
  const total = mergedYears(ranges);
  // Lengths beside their jobs' dates ("Jan 2019 - Present · 7 yrs") add up to no more than those dates merged (or the
  // longest of them: dates are read to the year, lengths to the month): jobs held at the same time (a job, a mentoring
  // role, a board seat) do not count twice.
  durations -= Math.max(0, datedDurations - Math.max(mergedYears(datedRanges), longestDated));
  if (stated < 0 && ranges.length === 0 && durations === 0) {
    const titles = jobTitles(resume);
    const levels = titles.map((t) => level(t.text));
    const top = levels.length > 0 ? Math.max(...levels) : 2;
    const implied = YEARS_BY_LEVEL[top] ?? null;
    return implied === null ? null : { years: implied, from: 'titles', passages: [titles[levels.indexOf(top)]!] };
  }
  // The largest of the three readings: a claim of the whole, the jobs' lengths summed, the dates merged.
  if (stated >= total && stated >= durations) return { years: stated, from: 'stated', passages: statedIn ? [statedIn] : [] };
  if (durations > total) return { years: durations, from: 'durations', passages: durationPassages };
  return { years: total, from: 'dates', passages: rangePassages };
}

const SENIORITY_OPEN = 11;
const SENIORITY_UNKNOWN = 9;

export function seniorityRule(input: RuleInput): RuleResult {
  const found = candidateYears(input);
  const wanted = input.role.years;
  if (wanted === null) {
    // The role states no level, so any experience fits and every candidate gets the same value.
    const have = found === null ? 'years of experience unknown' : `${Math.round(found.years * 10) / 10} years`;
    return { value: SENIORITY_OPEN, why: `${have}; the role states no level`, support: support(found?.passages ?? []) };
  }
  if (found === null) return { value: SENIORITY_UNKNOWN, why: 'years of experience unknown', support: [] };
  const years = Math.round(found.years * 10) / 10;
  const source = { field: 'profile', stated: 'stated', durations: "jobs' lengths summed", dates: 'from dates', titles: 'implied by job titles' }[found.from];
  const have = `${years} years (${source})`;
  const asked = wanted.max !== null ? `${wanted.min}-${wanted.max}` : `${wanted.min}+`;
  let value: number;
  if (years >= wanted.min) value = wanted.max !== null && years > wanted.max + 5 ? 12 : 15;
  else value = 3 + (12 * years) / Math.max(wanted.min, 1);
  return { value: bounded('seniority', value), why: `${have} against ${asked} asked`, support: support(found.passages) };
}

// ---- impact -------------------------------------------------------------------------------------

const QUANTITY_RE =
  /\d+(?:\.\d+)?\s?%|[$€£₹]\s?\d|\b\d+(?:\.\d+)?\s?(?:x|k|m|mm|bn)\b|\b\d[\d,.]*\+?\s+(?:users|customers|clients|people|engineers|developers|members|reports|servers|stores|sites|websites|apps|applications|downloads|transactions|requests|projects)\b|\bteam of \d+|\bfrom \d+(?:\.\d+)? to \d+(?:\.\d+)?\b/i;
const OUTCOME_RE =
  /\b(?:increas|reduc|improv|decreas|sav|grew|grow|boost|cut|achiev|generat|deliver|led|lead|manag|launch|optimi[sz]|drove|driv|accelerat|exceed|won|award|rais|doubl|tripl|lower|shorten|scal)\w*/i;

/** Share of a passage's specific words that are the role's own, saturating at five: 0..1. */
function relevance(role: RuleInput['role'], passage: Passage): number {
  let hits = 0;
  for (const t of new Set(passage.tokens)) if (role.topical.has(t)) hits++;
  return Math.min(1, hits / 5);
}

/** Without stated achievements impact is unknown, not absent: the neutral middle, moved up only by evidence. */
const IMPACT_NEUTRAL = 6;

export function impactRule({ role, resume }: RuleInput): RuleResult {
  const quantified: Passage[] = [];
  const qualitative: Passage[] = [];
  let points = 0;
  for (const p of resume.passages) {
    if (!OUTCOME_RE.test(p.text)) continue;
    // An achievement in the role's own work counts; one from unrelated work says little about this role.
    const r = relevance(role, p);
    if (QUANTITY_RE.test(p.text)) {
      points += 3 * r;
      quantified.push(p);
    } else if (qualitative.length < 3) {
      points += r;
      qualitative.push(p);
    }
  }
  const value = bounded('impact', IMPACT_NEUTRAL + points);
  const why = `${quantified.length} quantified achievement${quantified.length === 1 ? '' : 's'}, ${qualitative.length} stated without numbers`;
  return { value, why, support: support([...quantified, ...qualitative].slice(0, 2)) };
}

// ---- logistics ----------------------------------------------------------------------------------

const LOCATION_LINE_RE = /^(?:location|based in|address|city|residence)\s*[:\-–]\s*(.{2,80})$/i;

const passagePlaceTokens = (p: Passage): readonly string[] => (/[^\p{ASCII}]/u.test(p.text) ? placeTokens(p.text) : p.tokens);
const RELOCATE_RE = /\b(?:relocat\w*|open to remote|remote[- ]friendly|willing to (?:move|travel)|work remotely|remote work)\b/i;

export function logisticsRule({ role, candidate, resume }: RuleInput): RuleResult {
  if (role.locationTokens.length === 0) {
    return { value: role.remoteOk ? 10 : 5, why: role.remoteOk ? 'remote role' : 'the role states no location', support: [] };
  }
  const line = resume.passages.find((p) => LOCATION_LINE_RE.test(p.text));
  const where = candidate.location ?? (line ? (LOCATION_LINE_RE.exec(line.text)?.[1] ?? null) : null);
  // The line is the evidence only for the place read from it: the candidate's own field may name another.
  const quoted = line && candidate.location === null ? [line] : [];
  const here = where ? placeParts(where) : [];
  const relocate = resume.passages.find((p) => RELOCATE_RE.test(p.text));
  if (samePlace(role.locationParts, here)) {
    return { value: 10, why: `located in ${where}`, support: support(quoted) };
  }
  if (role.remoteOk) return { value: 9, why: 'remote role; location is no constraint', support: [] };
  if (relocate) return { value: 7, why: 'open to relocation or remote work', support: support([relocate]) };
  if (here.length === 0) {
    const first = role.locationParts[0] ?? [];
    const mention = resume.passages.find((p) => first.length > 0 && first.every((t) => passagePlaceTokens(p).includes(t)));
    return mention
      ? { value: 7, why: "mentions the role's location", support: support([mention]) }
      : { value: 5, why: 'location unknown', support: [] };
  }
  // An on-site role rules out elsewhere; a role silent about remote work leaves a little room.
  const value = role.onSite ? 2 : 3;
  return { value, why: `located in ${where}, not the role's location`, support: support(quoted) };
}

// ---- trajectory ---------------------------------------------------------------------------------

/**
 * The titles newest first: by the start year of the range on their line (or the line after it, where LinkedIn puts it)
 * when every one has one, so a resume listed oldest first reads the same; else as listed, which most resumes list
 * newest first.
 */
function byRecency(resume: ResumeText, titles: Passage[]): Passage[] {
  const startOf = (title: Passage): number | null => {
    const next = resume.passages[resume.passages.indexOf(title) + 1];
    for (const p of next ? [title, next] : [title]) {
      const m = RANGE_ANYWHERE_RE.exec(p.text);
      if (m) return Number(m[1]);
    }
    return null;
  };
  const starts = titles.map(startOf);
  if (titles.length < 2 || starts.some((s) => s === null)) return titles;
  return titles.map((title, i) => ({ title, start: starts[i]! })).sort((a, b) => b.start - a.start).map((t) => t.title);
}

export function trajectoryRule({ role, resume }: RuleInput): RuleResult {
  const titles = byRecency(resume, jobTitles(resume));
  if (titles.length === 0) return { value: 5, why: 'no job titles found', support: [] };
  const levels = titles.map((t) => level(t.text));
  const latest = levels[0]!;
  const earliest = levels[levels.length - 1]!;
  // The role's line of work: its specific title words ("ios", "django"), else all of them.
  const specific = role.titleTokens.filter((t) => !GENERIC_TERMS.has(t));
  const line = specific.length > 0 ? specific : role.titleTokens;
  const onRole = titles.filter((t) => line.some((x) => t.tokens.includes(x))).length;
  let value = 5;
  if (onRole > 0) value += 2;
  if (latest > earliest) value += 2;
  if (Math.max(...levels) >= 3) value += 1;
  if (Math.max(...levels) === 0) value -= 2;
  const steps = latest > earliest ? 'rising titles' : titles.length >= 2 ? 'steady titles' : 'one title';
  const why = `${titles.length} job title${titles.length === 1 ? '' : 's'}, ${steps}${onRole ? `, ${onRole} in this line of work` : ''}`;
  return { value: bounded('trajectory', value), why, support: support(titles.slice(0, 2)) };
}
