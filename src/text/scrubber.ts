// PII scrubbing as code-law: the only way resume text reaches agents, prompts and logs.
//
// Every pattern below is linear: bounded or unambiguous quantifiers only, and candidates that need
// judgement (is this digit run a phone or a year range?) are matched broadly and decided in code.
import { escapeRe, scrubContactNames, scrubHeaderName, scrubNameLabel, scrubNames } from './scrub-names.js';
import { scrubPersonalSites } from './scrub-sites.js';
import { isSkillForm } from './skills.js';

/**
 * The version of these rules. Stored scrubbed copies (candidates.scrub_version) older than this are scrubbed
 * again from the raw fields: bump it whenever a change here, or in what is stored from the scrubbed copies, should
 * reach rows already stored. A stale row matches no location or skill filter: it is rewritten first (rescrub.ts).
 * 2: skill_keys are made from the scrubbed skills, not the raw ones.
 * 3: spaced-out and bracketed emails ("jane . doe @ gmail . com", "[@]", "[.]"); phones written with other dashes or
 *    dots ("555—123—4567", "03・1234・5678") or followed by a comma; personal sites on bare domains ("janedoe.dev");
 *    handles after "GitHub ID:" and its like.
 * 4: a typographic dash between two numbers that reads as a range ("1200–1500 ms", "40 000–50 000") is no phone
 *    separator, as it was not before 3; a bare domain is a column of a contact line only if the line is one (short
 *    columns, no other domain) and it stands beside a contact detail or at an end of the line; a spaced full stop
 *    after an address ends it at its first TLD ("jane . doe @ gmail . com . Thanks" was left whole) and one before a
 *    tight address is punctuation ("Go . Kafka . jane@x.com"); a GitHub, GitLab, Bitbucket or LinkedIn handle inside a
 *    line ("GitHub ID: janesmith456 | Email: ...").
 */
export const SCRUB_RULES_VERSION = 4;

export interface ScrubOptions {
  /** The candidate's known names (full names or parts); every part of 2+ letters is removed. */
  names?: string[];
  /** The candidate's own email addresses: removed wherever they occur, whatever the patterns make of them. */
  emails?: string[];
  /** The candidate's own phone numbers: removed wherever their digits occur in that order, whatever the separators. */
  phones?: string[];
  /**
   * Whether a name may be guessed from the text's own shape (a header line, a "Name:" line). True for resumes;
   * false for short fields (a location, a skill, a role title) where "Buenos Aires" would be taken for a person.
   */
  detectNames?: boolean;
  /** Removes a capitalised name right after a contact label ("Hiring manager Jane Roe", "Contact: Jane Roe"): for roles. */
  contactNames?: boolean;
}

/**
 * A replacement, optionally starting before the match (a pattern anchored on "@" reaches back for the local part) or
 * ending before its end (the match took more than the decision keeps).
 */
type Decision = string | { from: number; to?: number; replacement: string } | null;
type Decide = (match: RegExpExecArray, text: string) => Decision;

/**
 * Like String.replace, but a rejected match (null) only skips one character, so overlaps still get a chance. The
 * pattern runs on text; what is kept comes from source, a copy of the same length (text itself unless given).
 */
function replaceDecided(text: string, re: RegExp, decide: Decide, source = text): string {
  re.lastIndex = 0;
  let out = '';
  let copied = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const decision = decide(m, text);
    const from = typeof decision === 'object' && decision !== null ? decision.from : m.index;
    if (decision === null || from < copied) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += source.slice(copied, from) + (typeof decision === 'string' ? decision : decision.replacement);
    copied = typeof decision === 'object' && decision.to !== undefined ? decision.to : m.index + m[0].length;
    re.lastIndex = Math.max(copied, m.index + 1);
  }
  return copied === 0 ? source : out + source.slice(copied);
}

// ---- emails ------------------------------------------------------------------------------------

// Latin letters with diacritics too: "müller@beispiel.de" must not leave "mü" behind.
const LABEL = '[A-Za-z0-9_%+\\-\\u00C0-\\u024F]{1,64}';
const OPEN = '[\\[({<]';
const CLOSE = '[\\])}>]';
const AT = `(?:@|${OPEN}[ \\t]?(?:at|@)[ \\t]?${CLOSE}|at(?= ))`;
// A dot may be spaced out ("jane . doe @ gmail . com"), bracketed ("[dot]", "(.)") or spelled (" dot ").
const DOT = `(?:\\.|[ \\t]{1,2}\\.[ \\t]{1,2}|[ \\t]{0,2}${OPEN}[ \\t]?(?:dot|\\.)[ \\t]?${CLOSE}[ \\t]{0,2}| dot )`;
// Anchored on the "at" so the engine skips ahead to it; the local part is read back by a lookbehind.
const EMAIL_RE = new RegExp(
  `${AT}(?<=(?<![\\w.%+\\-@\\u00C0-\\u024F])(${LABEL}(?:${DOT}${LABEL}){0,4})[ \\t]{0,2}${AT})[ \\t]{0,2}(${LABEL}(?:${DOT}${LABEL}){1,5})(?![\\w@\\u00C0-\\u024F])`,
  'gi',
);
// Cheap pre-checks: most resumes have no link or address, so the costlier patterns rarely run.
const EMAIL_HINT = /@|[[({<][ \t]?(?:at|dot)[ \t]?[\])}>]| dot | at [a-z0-9-]{1,30}\./i;
const TLDS = new Set('com org net edu gov mil int io co ai dev app me info biz us uk in de fr es it nl be ch at se no dk fi pl pt ie ca au nz jp cn sg hk br mx ru za email mail'.split(' '));
const MAIL_HOSTS = new Set('gmail googlemail yahoo ymail outlook hotmail live msn icloud me mac aol proton protonmail pm gmx yandex zoho mail email fastmail rediffmail qq 163'.split(' '));
const NOT_LOCAL_PARTS = new Set('worked work works working based located live lives living employed intern interned engineer developer manager analyst lead role job position experience team teams project projects company skilled expert proficient good great best me us him her them it this that is am are was were be been and or but who which student studied graduated degree senior junior'.split(' '));

const LABEL_SEPARATOR = /[ \t]*(?:\.|[[({<][ \t]?(?:dot|\.)[ \t]?[\])}>]| dot )[ \t]*/i;
const SPACED_DOT = /[ \t]\.[ \t]/;

// A country under a generic second level ("acme . co . uk"): the one label a domain keeps past its first TLD.
const GENERIC_SECOND_LEVEL = new Set('co com org net ac gov edu'.split(' '));
const SPACED_DOTS = /[ \t]{1,2}\.[ \t]{1,2}/g;

/** The first `count` labels of a domain as written, with the separators between them. */
function leadingLabels(domain: string, count: number): string {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const sep = LABEL_SEPARATOR.exec(domain.slice(at));
    if (!sep) return domain;
    if (i === count - 1) return domain.slice(0, at + sep.index);
    at += sep.index + sep[0].length;
  }
  return domain;
}

function decideEmail(m: RegExpExecArray, text: string): Decision {
  const [token, matchedLocal = '', domainAsMatched = ''] = m;
  let gap = 0;
  while (gap < 2 && (text[m.index - gap - 1] === ' ' || text[m.index - gap - 1] === '\t')) gap++;
  let domain = domainAsMatched;
  let to: number | undefined;
  // A spaced dot also ends a sentence ("jane@x.com . Next", "jane@x.com . In 2019 ..."): past one, the domain ends at
  // its first known TLD (and a country after a generic one, "acme . co . uk"), or before the spaced dot.
  if (SPACED_DOT.test(domain)) {
    const all = domain.split(LABEL_SEPARATOR);
    let end = all.findIndex((label, i) => i > 0 && TLDS.has(label.toLowerCase()));
    if (end >= 0) {
      const next = all[end + 1];
      if (next !== undefined && GENERIC_SECOND_LEVEL.has(all[end]!.toLowerCase()) && /^[a-z]{2}$/.test(next) && TLDS.has(next)) end++;
      domain = leadingLabels(domain, end + 1);
    } else {
      domain = domain.slice(0, SPACED_DOT.exec(domain)!.index);
    }
    if (domain !== domainAsMatched) to = m.index + token.length - domainAsMatched.length + domain.length;
  }
  // Likewise before it ("Skills: Go . Kafka . jane@x.com"): an address whose @ and domain are written tight has a
  // tight local part, so a spaced dot in front of it is punctuation, and what precedes it is no part of the address.
  let local = matchedLocal;
  if (gap === 0 && token.startsWith('@') && !SPACED_DOT.test(domain)) {
    let after = 0;
    for (const dot of local.matchAll(SPACED_DOTS)) after = dot.index + dot[0].length;
    local = local.slice(after);
  }
  const from = m.index - gap - local.length;
  const labels = domain.split(LABEL_SEPARATOR);
  const tld = (labels[labels.length - 1] ?? '').toLowerCase();
  if (labels.length < 2 || !/^[a-z]{2,}$/.test(tld)) return null;
  if (!/^at/i.test(token)) return { from, to, replacement: '[EMAIL]' };
  // A bare " at " is English far more often than an address: demand a mail host or a spelled-out dot.
  if (gap === 0 || NOT_LOCAL_PARTS.has(local.toLowerCase())) return null;
  const spelledDot = / dot /i.test(domain);
  const mailHost = MAIL_HOSTS.has((labels[0] ?? '').toLowerCase());
  return TLDS.has(tld) && (spelledDot || mailHost) ? { from, to, replacement: '[EMAIL]' } : null;
}

// ---- URLs --------------------------------------------------------------------------------------

const URL_TAIL = `[^\\s<>"'\\[\\]()]`;
const SCHEME_URL_RE = new RegExp(`(?<![\\w@])(?:(?:https?|ftp)://|www\\.)${URL_TAIL}{1,2048}`, 'gi');
const PROFILE_HOSTS = 'linkedin\\.com|github\\.com|github\\.io|gitlab\\.com|bitbucket\\.org|twitter\\.com|x\\.com|medium\\.com|behance\\.net|dribbble\\.com|stackoverflow\\.com|kaggle\\.com|facebook\\.com|instagram\\.com|about\\.me|angel\\.co|wellfound\\.com|codepen\\.io|dev\\.to|hashnode\\.dev|leetcode\\.com|hackerrank\\.com|substack\\.com' +
  // Personal hosting: a name under one of these is someone's own site, never a skill.
  '|netlify\\.app|vercel\\.app|pages\\.dev|web\\.app|firebaseapp\\.com|herokuapp\\.com|gitlab\\.io|surge\\.sh|glitch\\.me|wixsite\\.com|wordpress\\.com|blogspot\\.com|notion\\.site|carrd\\.co|linktr\\.ee|read\\.cv|bio\\.link|replit\\.app|fly\\.dev|onrender\\.com';
const PROFILE_URL_RE = new RegExp(`(?<![\\w@.\\-/])(?:[a-z0-9\\-]{1,63}\\.){0,3}(?:${PROFILE_HOSTS})(?:/${URL_TAIL}{0,2048})?`, 'gi');
// Bare domains only count with a path: "Node.js" and "ASP.NET" are skills, not links.
const PATH_TLDS = 'com|org|io|dev|me|co|ai|app|info|uk|in|de|fr|es|nl|ca|au|us|edu|gov';
const PATH_URL_RE = new RegExp(`(?<![\\w@.\\-/])[a-z0-9][a-z0-9\\-]{0,62}(?:\\.[a-z0-9\\-]{1,63}){0,3}\\.(?:${PATH_TLDS})/${URL_TAIL}{0,2048}`, 'g');
const DOMAIN_HINT = new RegExp(`[a-z0-9]\\.(?:${PATH_TLDS}|net|to|sh|ee|site|cv|link)\\b`, 'i');
const LINK_LABEL_RE = /^([ \t]*(?:[-•*][ \t]*)?(?:(?:personal|my|own)[ \t]+)?(linkedin|github|gitlab|twitter|website|web[ \t]?site|web|portfolio|blog|homepage|home[ \t]page|site|url)(?:[ \t]+(?:id|handle|user[ \t]?name|profile|account))?[ \t]*[:\-–][ \t]*)([^\s[\]]{2,2048})[ \t]*$/gim;
const HANDLE = /^@?[A-Za-z0-9_-]{2,39}$/;
// A labelled site inside a line ("Personal site: janedoe.com | ..."): the label says it is a link, so any domain
// counts, but a known skill ("Web: Node.js") does not. "web" alone is a skills heading, so it is not a label here.
const INLINE_SITE_RE = /(?<![\p{L}\d])((?:(?:personal|my|own)[ \t]+)?(?:website|web[ \t]?site|portfolio|blog|homepage|home[ \t]page|site|url)[ \t]*[:\-–][ \t]*)((?:https?:\/\/)?[a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){1,4}(?:\/[^\s<>"'[\]()]{0,2048})?)/giu;
const SITE_HINT = /(?:site|url|portfolio|blog|homepage|home page)[ \t]*[:\-–]/i;
const HANDLE_HINT = /(?:skype|telegram|discord|wechat|weixin|viber|instagram|tiktok|keybase|mastodon|twitter)/i;
// Messaging handles after their label ("Skype: jane.doe.1985", "Telegram: @janedoe", "Telegram @janedoe").
const HANDLE_LABEL_RE = /(?<![\p{L}\d])((?:skype|telegram|discord|wechat|weixin|viber|instagram|tiktok|keybase|mastodon|twitter)(?:[ \t]+(?:id|handle|name|username))?(?:[ \t]*[:：][ \t]*|[ \t]{0,3}[-–—]?[ \t]{0,3}(?=@)))(@?[\w.-]{2,64})/giu;
// A code-hosting or LinkedIn handle inside a line ("GitHub ID: janesmith456 | Email: ..."): LINK_LABEL_RE takes one only
// at the end of its line. Without "ID", "username" and their like the label also heads skills ("GitHub: Actions, Pages"),
// so the handle then needs a mark of one (a digit, "_", "-", "."). A value running on into a path is a URL, found later.
const PROFILE_HANDLE_HINT = /(?:github|gitlab|bitbucket|linkedin)[ \t]*(?:(?:id|handle|user[ \t]?name|profile|account)[ \t]*)?[:：]/i;
const PROFILE_HANDLE_RE = /(?<![\p{L}\d])((?:github|gitlab|bitbucket|linkedin)([ \t]+(?:id|handle|user[ \t]?name|profile|account))?[ \t]*[:：][ \t]*)(@?[\w.-]{2,64})(?![\w.\-/@])/giu;

/** Sentence punctuation after a link belongs to the sentence. */
const decideUrl = (m: RegExpExecArray): string => `[URL]${/[.,;:!?]+$/.exec(m[0])?.[0] ?? ''}`;

// ---- phones ------------------------------------------------------------------------------------

// "/" joins a German area code to its number ("0171/1234567", "030 / 12345678"); phoneScore decides.
const PHONE_CANDIDATE_RE = /(?<![\w+./,-])\+?\(?\d[\d ().–/-]*\d\)?/g;
const PHONE_LABEL_RE = /(?:phone|tel|telephone|tél|téléphone|telefon|mobile|mobil|handy|portable|mob|cell|contact|whatsapp|ph|電話|携帯)\.?(?:[ \t]*(?:no|number|nr|#))?\.?[ \t]*[:\-–]?[ \t]*$/i;
const MONEY_RE = /(?:[$€£¥₹]|\b(?:salary|ctc|pay|compensation|stipend|budget|revenue|rs|inr|usd|eur|gbp)\b[^\n\d]{0,12})[ \t]?$/i;
const YEAR = /^(?:19|20)\d\d$/;

// Phone shape: optional country code, optional (area code), then digit groups with one separator style.
const PHONE_SHAPE = /^(?:\+?\d{1,4}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{1,15}(?:(?: ?[.-] ?| )\d{1,10}){0,5}$/;
// A national area code starting with 0, then "/" and the number ("0171/1234567", "0171 / 123 45 67").
const SLASH_PHONE_SHAPE = /^0\d{1,5} ?\/ ?\d{3,10}(?: \d{1,10}){0,3}$/;
// The French national format: five pairs, the first starting with 0 ("06 12 34 56 78", "01.42.68.53.00").
const FRENCH_PHONE_SHAPE = /^0\d(?:([ .-])\d\d)(?:\1\d\d){3}$/;

/** A score for the span as a phone number, or -1 when it is not one (years, dates, amounts, IPs). */
function phoneScore(span: string, groups: string[], labelled: boolean): number {
  const digits = groups.join('').length;
  const plus = span.startsWith('+');
  const hasCountry = plus || span.startsWith('00');
  if (digits > 15 || digits < (hasCountry ? 8 : 7)) return -1;
  // "012345/2020" is a reference and a year, not an area code and a number.
  if (span.includes('/')) return SLASH_PHONE_SHAPE.test(span) && digits >= 8 && !(groups.length === 2 && YEAR.test(groups[1]!)) ? digits + 3 : -1;
  if (!PHONE_SHAPE.test(span)) return -1;
  if (FRENCH_PHONE_SHAPE.test(span)) return digits + 3;
  const seps = span.replace(/^\+?\d{1,4}(?=[ .-]?\()|\(\d+\)/g, '').split(/\d+/).slice(1, -1).filter((s) => s !== '');
  const sizes = groups.map((g) => g.length);
  const years = groups.map((g) => YEAR.test(g));
  if (years.every(Boolean) || years.some((y, i) => y && years[i + 1])) return -1; // 2015-2019, 2016 2018
  if (groups.length === 3 && ((years[0] && sizes[1]! <= 2 && sizes[2]! <= 2) || (years[2] && sizes[0]! <= 2 && sizes[1]! <= 2))) return -1;
  if (!labelled && !hasCountry) {
    if (groups.length === 1 && digits < 10) return -1;
    if (!span.includes('(') && sizes[0]! <= 3 && groups.length > 1 && sizes.slice(1).every((n) => n === 3)) return -1; // 1.000.000
    if (groups.length === 4 && seps.every((s) => s === '.') && sizes.every((n) => n <= 3)) return -1; // IPs
    if (sizes[sizes.length - 1]! < 3) return -1;
  }
  const styles = new Set((hasCountry && !span.includes('(') ? seps.slice(1) : seps).map((s) => s.trim() || ' '));
  const edgeYear = groups.length > 1 && (years[0] || years[groups.length - 1]);
  return digits + (styles.size <= 1 ? 3 : 0) - (edgeYear ? 2 : 0);
}

// Other dashes and dots between digits ("555—123—4567", "+44 20–7946–0958", "03・1234・5678") read as "-" and ".":
// the phone rules run on a copy with them replaced, one UTF-16 unit for one, and the text keeps its own marks.
const OTHER_DASH_DOT_HINT = /[\u00B7\u2010-\u2015\u2022\u2027\u2212\u2219\u22C5\u2E3A\u2E3B\u30FB\u30FC]/;
const OTHER_DASH_RE = /(?<=\d ?)[\u2010-\u2015\u2212\u2E3A\u2E3B\u30FC](?= ?\d)/g;
const OTHER_DOT_RE = /(?<=\d)[\u00B7\u2022\u2027\u2219\u22C5\u30FB](?=\d)/g;

// A number just before or after a dash: whole, decimal ("3.5") or grouped in thousands ("40 000", "1,200,000").
const NUMBER = '\\d{1,3}(?:([ ,.])\\d{3})(?:\\1\\d{3})*|\\d+(?:[.,]\\d+)?';
const NUMBER_BEFORE_DASH = new RegExp(`(?<![\\d.,])(${NUMBER.replaceAll('\\1', '\\2')}) ?$`);
const NUMBER_AFTER_DASH = new RegExp(`^ ?(${NUMBER.replaceAll('\\1', '\\2')})(?![\\d.,]?\\d)`);
// What stands before a phone's group but not before the low end of a range: another bare digit group ("+44 20"), a
// closing bracket ("(555) 123"), a plus, a dash or a dot.
const PHONE_BEFORE = /(?:(?<![\p{L}\d])\+?\d+ ?|[+)\-.\u00B7\u2010-\u2015\u2212\u2E3A\u2E3B\u30FB\u30FC] ?)$/u;
const numberValue = (n: string) => (/^\d{1,3}(?:([ ,.])\d{3})(?:\1\d{3})*$/.test(n) ? Number(n.replace(/[ ,.]/g, '')) : Number(n.replace(',', '.')));

/**
 * A typographic dash between two numbers that reads as a range: the low end first ("2019–2021", "1200–1500 ms",
 * "40 000–50 000", "3.5–4"), no leading zero (an area code has one), nothing phone-like around it (a second dash, a
 * bracket, another digit group, a phone label). Such a dash is left as written, so the phone rules see no separator there.
 */
function isRangeDash(text: string, at: number, length: number): boolean {
  const before = text.slice(Math.max(0, at - 40), at);
  const after = text.slice(at + length, at + length + 40);
  const low = NUMBER_BEFORE_DASH.exec(before);
  const high = NUMBER_AFTER_DASH.exec(after);
  if (!low || !high) return false;
  const lowText = low[1]!;
  if (/^0\d/.test(lowText)) return false;
  const rest = after.slice(high[0].length);
  if (/^ ?[-.\u00B7\u2010-\u2015\u2212\u2E3A\u2E3B\u30FB\u30FC]? ?\d/.test(rest)) return false;
  const lead = before.slice(0, before.length - low[0].length);
  if (PHONE_BEFORE.test(lead) || PHONE_LABEL_RE.test(lead.slice(-24))) return false;
  return numberValue(lowText) < numberValue(high[1]!);
}

function scrubPhones(text: string, ascii: boolean): string {
  if (ascii || !OTHER_DASH_DOT_HINT.test(text)) return replaceDecided(text, PHONE_CANDIDATE_RE, decidePhones);
  const read = text
    .replace(OTHER_DASH_RE, (dash: string, at: number) => (isRangeDash(text, at, dash.length) ? dash : '-'))
    .replace(OTHER_DOT_RE, '.');
  return replaceDecided(read, PHONE_CANDIDATE_RE, (m, t) => decidePhones(m, t, text), text);
}

/** The candidate span with its phones replaced; source is the text as written when the match ran on a copy. */
function decidePhones(m: RegExpExecArray, text: string, source = text): string {
  const raw = m[0];
  const g: { start: number; end: number }[] = [];
  for (const d of raw.matchAll(/\d+/g)) g.push({ start: d.index, end: d.index + d[0].length });
  const before = text.slice(Math.max(0, m.index - 24), m.index);
  const labelled = PHONE_LABEL_RE.test(before);
  // A comma continues an amount only when digits follow it ("1,200"); "555-123-4567, or" ends a phone.
  const money = MONEY_RE.test(before) || /^(?:%|,\d)/.test(text.slice(m.index + raw.length, m.index + raw.length + 2));
  // Hyphen- or dot-joined groups ("2015-2019") are one token: a phone never starts or ends inside one.
  // A "/" joins too ("05/12/2020", "08/2019"): only SLASH_PHONE_SHAPE accepts a span across one.
  const tight = (k: number) => k > 0 && k < g.length && /^(?:[.-]| ?\/ ?)$/.test(raw.slice(g[k - 1]!.end, g[k]!.start));
  const spans: { i: number; j: number; start: number; end: number; score: number }[] = [];
  for (let i = 0; i < g.length; i++) {
    if (tight(i) || (money && i === 0)) continue;
    let digits = 0;
    for (let j = i; j < Math.min(g.length, i + 6); j++) {
      digits += g[j]!.end - g[j]!.start;
      if (digits > 15) break;
      if (digits < 7 || tight(j + 1)) continue;
      let start = g[i]!.start;
      while (start > 0 && (raw[start - 1] === '(' || raw[start - 1] === '+')) start--;
      let end = g[j]!.end;
      const piece = raw.slice(start, end);
      if (piece.split('(').length > piece.split(')').length && raw[end] === ')') end++;
      const groups = g.slice(i, j + 1).map((x) => raw.slice(x.start, x.end));
      const score = phoneScore(raw.slice(start, end), groups, labelled && i === 0);
      if (score >= 0) spans.push({ i, j, start, end, score });
    }
  }
  // Best-scoring spans first, longer on ties; then keep those that do not overlap.
  spans.sort((a, b) => b.score - a.score || b.j - b.i - (a.j - a.i) || a.i - b.i);
  const kept: typeof spans = [];
  const used = new Uint8Array(g.length);
  for (const s of spans) {
    if (used.subarray(s.i, s.j + 1).some((u) => u === 1)) continue;
    used.fill(1, s.i, s.j + 1);
    kept.push(s);
  }
  // Built front to back in one pass: re-slicing the whole span once per phone was quadratic in a long run of them.
  const span = source.slice(m.index, m.index + raw.length);
  let out = '';
  let copied = 0;
  for (const s of kept.sort((a, b) => a.start - b.start)) {
    out += `${span.slice(copied, s.start)}[PHONE]`;
    copied = s.end;
  }
  return out + span.slice(copied);
}

// ---- addresses ---------------------------------------------------------------------------------

const STREET_TYPES = 'Street St Avenue Ave Road Rd Boulevard Blvd Lane Ln Drive Dr Court Ct Parkway Pkwy Place Pl Square Sq Terrace Highway Hwy Way Close Crescent Circle Cir Trail Plaza Alley Mews Marg'.split(' ');
const STREET_ALT = [...STREET_TYPES, ...STREET_TYPES.map((s) => s.toUpperCase())].join('|');
const CAP_WORD = "[A-Z][A-Za-z'’.\\-]{0,30}";
// A whole word: "NW1" in "London NW1 6XE" is a postcode, not the start of a city name.
const CITY_WORD = "[A-Z][A-Za-z'’\\-]{0,30}(?![\\w'’\\-])";
const UK_POSTCODE = '[A-Z]{1,2}\\d[A-Z\\d]?[ \\t]\\d[A-Z]{2}';
const STREET_RE = new RegExp(
  `(?<![\\w.\\-])\\d{1,5}[A-Z]?(?:-\\d{1,5})?[ \\t]+(?:(?:${CAP_WORD}|\\d{1,3}(?:st|nd|rd|th))[ \\t]+){0,4}(?:${STREET_ALT})\\b\\.?` +
    `(?:,?[ \\t]*(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl|Room|Rm|#)\\.?[ \\t]*#?[A-Za-z0-9\\-]{1,6})?` +
    `(?:,[ \\t]*${CITY_WORD}(?:[ \\t]${CITY_WORD}){0,2}){0,3}(?:,?[ \\t]*(?:\\d{5}(?:-\\d{4})?\\b|${UK_POSTCODE}(?![\\w-])))?`,
  'g',
);
// German: the street type is a suffix or a word before the number ("Hauptstraße 5", "Berliner Str. 12a"),
// then an optional postcode and city ("10115 Berlin").
const PLZ_CITY = `(?:,?[ \\t]*(?:D-)?\\d{5}(?:[ \\t]+\\p{Lu}[\\p{L}\\-]{0,30}(?![\\p{L}\\-])(?:[ \\t]\\p{Lu}[\\p{L}\\-]{0,30}(?![\\p{L}\\-]))?)?(?![\\p{L}\\d]))?`;
const GERMAN_STREET_RE = new RegExp(
  `(?<![\\p{L}\\d])(?:\\p{Lu}[\\p{L}\\-]{0,30}[ \\t])?(?:\\p{Lu}[\\p{Ll}\\-]{0,30}(?:straße|strasse|str\\.|allee|gasse|platz|weg|damm|ufer|chaussee)|Straße|Strasse|Str\\.|Allee|Gasse|Weg)` +
    `[ \\t]{1,2}\\d{1,4}[a-zA-Z]?(?:[-–/]\\d{1,4}[a-zA-Z]?)?(?![\\p{L}\\d])${PLZ_CITY}`,
  'gu',
);
// French: number, street type, then its name ("12 rue de Rivoli, 75001 Paris", "5 bis, avenue de l’Opéra").
const GERMAN_STREET_HINT = /(?:stra(?:ß|ss)e|str\.|allee|gasse|platz|weg|damm|ufer|chaussee)[ \t]{1,2}\d/i;
const FRENCH_STREET_HINT = /\d[ \t,a-z]{1,6}(?:rue|avenue|av\.|bd|boulevard|place|quai|all[ée]e|impasse|chemin|route|faubourg)(?![a-z])/i;
const FRENCH_STREET_RE = new RegExp(
  `(?<![\\w.\\-])\\d{1,4}(?:[ \\t]?(?:bis|ter)|[A-Za-z])?,?[ \\t]+(?:[Rr]ue|[Aa]venue|[Aa]v\\.|[Bb]oulevard|[Bb]d|[Pp]lace|[Qq]uai|[Aa]ll[ée]e|[Ii]mpasse|[Cc]hemin|[Rr]oute|[Ff]aubourg)(?![\\p{L}])` +
    `(?:[ \\t]+(?:(?:[ld]['’])?\\p{Lu}[\\p{L}'’\\-]{0,30}|de|du|des|la|le|aux|au|et|sur|en)(?![\\p{L}'’\\-])){1,6}${PLZ_CITY}`,
  'gu',
);
const PO_BOX_RE = /\bP\.?[ \t]?O\.?[ \t]?Box[ \t]+\d{1,6}\b/gi;
const UK_POSTCODE_RE = new RegExp(`(?<![\\w-])${UK_POSTCODE}(?![\\w-])`, 'g');
const US_STATES = 'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY';
const US_ZIP_RE = new RegExp(`(?<=\\b(?:${US_STATES.replaceAll(' ', '|')}),?[ \\t])\\d{5}(?:-\\d{4})?\\b`, 'g');
const ADDRESS_LABEL_RE = /^([ \t]*(?:[-•*][ \t]*)?(?:(?:home|mailing|postal|street|residential|permanent|current)[ \t]+)?address[ \t]*[:\-–][ \t]*)(\S[^\n]*)$/gim;

// ---- entry points ------------------------------------------------------------------------------

// Between a known phone's digits: spaces, brackets, slashes, and any dash or dot (ASCII or not).
const KNOWN_PHONE_SEPARATORS = ' .()/\\-\\u00B7\\u2010-\\u2015\\u2022\\u2027\\u2212\\u2219\\u22C5\\u2E3A\\u2E3B\\u30FB\\u30FC';

/** The candidate's own emails and phones, exactly (emails in any case; phones as their digits, any separators). */
function scrubKnown(text: string, opts: ScrubOptions): string {
  let out = text;
  // Each known value needs a pattern of its own, and compiling one costs more than scanning the text: it is built
  // only when a plain search says the value may be there (a field, a skill or a resume whose patterns already
  // replaced the email holds none of it).
  for (const email of opts.emails ?? []) {
    const e = email.normalize('NFKC').trim();
    if (e.length < 3 || (/^[\x20-\x7e]+$/.test(e) && !out.toLowerCase().includes(e.toLowerCase()))) continue;
    out = out.replace(new RegExp(`(?<![\\w.+-])${escapeRe(e)}(?![\\w-])`, 'gi'), '[EMAIL]');
  }
  // A phone's digits, with its separators taken out, appear in the text's digits in a row wherever it is written.
  const textDigits = opts.phones?.length ? out.replace(/\D/g, '') : '';
  for (const phone of opts.phones ?? []) {
    const digits = phone.normalize('NFKC').replace(/\D/g, '');
    if (digits.length < 6 || digits.length > 15 || !textDigits.includes(digits)) continue;
    // Each separator run is bounded and holds no digit, so the pattern is linear.
    out = out.replace(new RegExp(`(?<![\\d])\\+?${digits.split('').join(`[${KNOWN_PHONE_SEPARATORS}]{0,3}`)}(?!\\d)`, 'g'), '[PHONE]');
  }
  return out;
}

/** Sentence punctuation after a handle belongs to the sentence. */
function decideHandle(all: string, label: string, value: string, offset: number, text: string): string {
  const trail = /[.-]+$/.exec(value)?.[0] ?? '';
  const handle = value.slice(0, value.length - trail.length);
  const next = text.slice(offset + all.length).match(/^[ \t]*(.?)/)?.[1] ?? '';
  // A handle has a mark of one ("@", ".", "_", a digit) or stands alone at the end of its line or column.
  const alone = next === '' || next === '\n' || /[|,;•·]/.test(next);
  if (handle.length < 2 || handle.includes('[') || isSkillForm(handle) || !(/^@|[._\d]/.test(handle) || alone)) return all;
  return `${label}[URL]${trail}`;
}

/**
 * Line ends as "\n"; full-width and other compatibility forms ("＠", "０９０－１２３４") as the ASCII the patterns know (NFKC).
 * Also whether the text is ASCII, as most resumes are: passes for other marks can skip it without a scan of their own.
 */
function normalizeInput(text: string): { text: string; ascii: boolean } {
  const out = text.replace(/\r\n?/g, '\n');
  return /[\u0080-\uffff]/.test(out) ? { text: out.normalize('NFKC'), ascii: false } : { text: out, ascii: true };
}

/**
 * Replaces emails, phones, links, street addresses and the candidate's name with typed placeholders. Idempotent.
 * The result is NFKC-normalised: "＠" and "０９０" come back as "@" and "090" wherever they were not PII.
 */
export function scrub(text: string, opts: ScrubOptions = {}): string {
  const input = normalizeInput(text);
  let out = input.text;
  if (EMAIL_HINT.test(out)) out = replaceDecided(out, EMAIL_RE, decideEmail);
  out = out.replace(LINK_LABEL_RE, (all, label: string, site: string, value: string) => {
    const profile = /^(?:linkedin|github|gitlab|twitter)$/i.test(site) && HANDLE.test(value);
    if (isSkillForm(value.replace(/[.,;]+$/, ''))) return all;
    return /[./@]/.test(value) || profile ? `${label}[URL]` : all;
  });
  if (SITE_HINT.test(out)) out = out.replace(INLINE_SITE_RE, (all, label: string, value: string) => {
    const site = value.replace(/[.,;:!?]+$/, '');
    const tld = /\.([a-z]{2,24})(?:\/|$)/i.exec(site)?.[1];
    return tld === undefined || isSkillForm(site) ? all : `${label}[URL]${value.slice(site.length)}`;
  });
  if (HANDLE_HINT.test(out)) out = out.replace(HANDLE_LABEL_RE, decideHandle);
  if (PROFILE_HANDLE_HINT.test(out)) {
    out = out.replace(PROFILE_HANDLE_RE, (all: string, label: string, suffix: string | undefined, value: string, offset: number, text: string) =>
      suffix || /[\d_.-]/.test(value.replace(/[.-]+$/, '')) ? decideHandle(all, label, value, offset, text) : all,
    );
  }
  out = replaceDecided(out, SCHEME_URL_RE, decideUrl);
  if (DOMAIN_HINT.test(out)) {
    out = replaceDecided(out, PROFILE_URL_RE, decideUrl);
    out = replaceDecided(out, PATH_URL_RE, decideUrl);
  }
  out = out.replace(ADDRESS_LABEL_RE, (_all, label: string) => `${label}[ADDRESS]`);
  // A full street word ends a sentence, not an abbreviation: "Baker Street." keeps its full stop.
  out = out.replace(PO_BOX_RE, '[ADDRESS]').replace(STREET_RE, (hit) => (/[a-z]{4}\.$/.test(hit) ? '[ADDRESS].' : '[ADDRESS]'));
  if (GERMAN_STREET_HINT.test(out)) out = out.replace(GERMAN_STREET_RE, '[ADDRESS]');
  if (FRENCH_STREET_HINT.test(out)) out = out.replace(FRENCH_STREET_RE, '[ADDRESS]');
  out = out.replace(UK_POSTCODE_RE, '[ADDRESS]');
  if (/\d{5}/.test(out)) out = out.replace(US_ZIP_RE, '[ADDRESS]');
  out = scrubPhones(out, input.ascii);
  // After the patterns, which give "(555) 123-4567" whole: the known values catch what no pattern recognised.
  out = scrubKnown(out, opts);

  const found: string[] = [];
  if (opts.contactNames) out = scrubContactNames(out);
  const detect = opts.detectNames !== false;
  if (detect) {
    out = scrubNameLabel(out, found);
    out = scrubHeaderName(out, found);
  }
  // Once the names the text shows are found (a site is often named after its owner), and before they are replaced.
  out = scrubPersonalSites(out, [...found, ...(opts.names ?? [])], detect);
  if (!detect) return scrubNames(out, opts.names ?? [], true);
  // Names found in the text itself are matched only when capitalised: a heuristic may misfire.
  out = scrubNames(out, found, false);
  out = scrubNames(out, opts.names ?? [], true);
  return out;
}

/** True when scrubbing would change the text: a cheap guard for logs and tests. */
export function containsPii(text: string, opts: ScrubOptions = {}): boolean {
  return scrub(text, opts) !== normalizeInput(text).text;
}
