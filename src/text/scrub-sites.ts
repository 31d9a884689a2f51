// Personal sites on bare domains, with no scheme, path or label ("janedoe.dev", "jane.io"). Part of the scrubber
// (scrubber.ts), which calls this once every other link, contact detail and shown name has been found.
import { nameSpellings, spelledBy, type NameSpellings } from './name-spellings.js';
import { foldName, nameParts } from './scrub-names.js';
import { isSkillForm } from './skills.js';
import { isWellKnownSite } from './well-known-sites.js';

// A bare domain is as often a skill, a product or an employer as someone's site ("socket.io", "Fly.io", "H2O.ai",
// "Booking.com"): its TLD decides nothing. A domain counts only where a person's own site stands: named after the
// person, in a column of a contact line, alone on a line of a resume's head, or after "my site" and its like.
const SITE_TLDS = ('com org net edu io co ai dev app me info biz us uk in de fr es it nl be ch at se no dk fi pl pt ie ca au nz eu ' +
  'page site blog name xyz tech codes design website online space ninja art cv one studio').replaceAll(' ', '|');
// Tried at each dot (found by indexOf, which is much faster than a pattern scanning for it): the TLD after the dot,
// then the labels before it, read back by a lookbehind.
const BARE_DOMAIN_AT_DOT = new RegExp(
  `\\.(?:${SITE_TLDS})(?![\\w@\\-/]|\\.[a-z0-9])(?<=(?<![\\w@.\\-/[])((?:[a-z0-9][a-z0-9-]{0,62}\\.){1,3})(?:${SITE_TLDS}))`,
  'iy',
);

// Only a line's neighbourhood is read around a domain: a long line costs no more than a short one.
const WINDOW = 160;
// What opens and closes a column of a contact line ("[EMAIL] | janedoe.dev | [PHONE]", "- janedoe.dev").
const CELL_BEFORE = /(?:^|[|•·●▪,;\t]|[ \t][-–—]|[ \t]{2})[ \t]*(?:[-*•●▪][ \t]+)?$/;
const CELL_AFTER = /^(?:[.;,]?[ \t]*$|[ \t]*[|•·●▪,;\t/]|[ \t]*[-–—][ \t]|[ \t]{2})/;
const CONTACT_PLACEHOLDER = /\[(?:EMAIL|PHONE|URL|NAME|ADDRESS)\]/;
// The columns of a line, split where CELL_BEFORE and CELL_AFTER see a column end.
const CELL_SPLIT = /[|•·●▪,;\t/]|[ \t][-–—](?=[ \t])|[ \t]{2,}/;
// A column that is a contact detail, perhaps after a short label ("Email: [EMAIL]", "Tel [PHONE]", "NY [ADDRESS]").
const CONTACT_CELL = /^(?:\p{L}[\p{L} .]{0,19}[:：]?[ \t]*)?\[(?:EMAIL|PHONE|URL|NAME|ADDRESS)\]$/u;
// What a contact line holds besides its details and the site: short columns (a place, a title, pronouns), no domain.
const SHORT_CELL = /^[^[\]@]{1,40}$/;
const DOMAIN_LIKE = /[a-z0-9]\.[a-z]/i;

/**
 * Whether the domain is a column of a contact line: every other column of the line is a contact detail or short (a
 * place, a title), one at least is a contact detail, and the domain stands beside one or at an end of the line. A line
 * of an experience or skills section that merely holds an address somewhere ("Engineer | Booking.com | 2019 – 2021 |
 * ref: [EMAIL]", "Tools: Fly.io, Sentry.io, Render.com. Contact: [PHONE]") is none: its other domains, or a long column,
 * or the domain's place in the middle, say so.
 */
function onContactLine(pre: string, post: string): boolean {
  const cells = (side: string) => side.split(CELL_SPLIT).map((c) => c.trim()).filter((c) => /[\p{L}\d[]/u.test(c));
  const before = cells(pre);
  const after = cells(post);
  const others = [...before, ...after];
  if (!others.some((c) => CONTACT_CELL.test(c))) return false;
  if (!others.every((c) => CONTACT_CELL.test(c) || (SHORT_CELL.test(c) && !DOMAIN_LIKE.test(c)))) return false;
  const beside = [before.at(-1), after[0]].some((c) => c !== undefined && CONTACT_CELL.test(c));
  return beside || before.length === 0 || after.length === 0;
}
const ALONE_BEFORE = /^[ \t]*(?:[-*•●▪][ \t]+)?$/;
const ALONE_AFTER = /^[.;,]?[ \t]*$/;
// "my portfolio at janedoe.dev", "find me on jane.io", or a column that starts "Blog jane.io". ("Portfolio: x" with
// its colon is a labelled site, found before this.)
const CUE_RE =
  /(?:\b(?:my|personal|own)[ \t]+(?:web[ \t]?)?(?:site|website|blog|portfolio|homepage|home[ \t]page|page)|\b(?:find|visit|reach|follow)[ \t]+me)(?:[ \t]+(?:is|at|on|here))?[ \t]*[:\-–—]?[ \t]*$|(?:^|[|•·●▪,;\t]|[ \t]{2})[ \t]*(?:[-*•●▪][ \t]+)?(?:blog|portfolio|homepage|home[ \t]page|website|web[ \t]site)[ \t]*[:\-–—]?[ \t]*$/i;
// Weaker cues, which prose also puts before an employer or a product ("see Booking.com", "visit Fly.io"): "see",
// "visit", "check out", "portfolio (at)", "blog", "site", "website", "homepage". They count only before a domain written
// in lower case, as people write their own, and with no skill in it ("see socket.io", "see docs.python.org").
const PROSE_CUE_RE =
  /(?:(?<![\w-])(?:see|visit|check[ \t]+out)(?:[ \t]+(?:more|demos?|examples|projects|work))?(?:[ \t]+(?:at|on))?|(?<![\w-])(?:portfolio(?:[ \t]+(?:at|on))?|blog|site|website|web[ \t]site|homepage|home[ \t]page))[ \t]*[:\-–—]?[ \t]*$/i;
// Top-level domains that people take for their own sites and companies seldom do: a lower-case domain under one is a
// personal site wherever it stands ("my portfolio janedoe.dev has demos", "more at jane.me"), unless it is a skill's
// or a well-known product's ("react.dev", "web.dev"). Under "io", "com" or "app" it is as often a product or an
// employer ("deployed on fly.io", "worked at acme.com"), so a cue or a site's place is still needed there. "name" is
// a person's as "jane.doe.name", while "user.name" is code; "codes" and "ninja" end code too ("status.codes", "build.ninja").
const PERSONAL_TLDS = new Set('dev me page site blog cv website xyz'.split(' '));
const isPersonalTld = (domain: string): boolean => {
  const labels = domain.split('.');
  const tld = labels[labels.length - 1]!;
  return PERSONAL_TLDS.has(tld) || (tld === 'name' && labels.length >= 3);
};
// A resume's head: its first lines with any text, up to the first section, and only if it holds contact details (a
// lone "Fly.io" under "Skills" is no site).
const HEAD_LINES = 5;
const SECTION_START = /^[ \t]*(?:[-*•●▪#][ \t]*)?(?:summary|profile|objective|about|experience|work|employment|education|skills|technical|technologies|tools|projects|certifications|languages|interests|career|professional|qualifications|achievements)\b/i;

function headEnd(text: string): number {
  let at = 0;
  for (let seen = 0; at < text.length && seen < HEAD_LINES; ) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(at, end);
    if (SECTION_START.test(line)) break;
    if (/\S/.test(line)) seen++;
    at = end + 1;
  }
  return CONTACT_PLACEHOLDER.test(text.slice(0, at)) ? at : 0;
}

// No person registers a domain under these: a university's, a school's or a government's ("ox.ac.uk", "stanford.edu").
const INSTITUTION_TLDS = new Set('edu gov mil int'.split(' '));
const INSTITUTION_SECOND_LEVEL = new Set('ac edu gov govt gob gouv mil nhs sch go'.split(' '));
function isInstitution(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  const tld = labels[labels.length - 1]!;
  if (INSTITUTION_TLDS.has(tld)) return true;
  return labels.length >= 3 && tld.length === 2 && INSTITUTION_SECOND_LEVEL.has(labels[labels.length - 2]!);
}

// "find me on codeberg.org", "follow me on bsky.app": "on" after a contact cue names a platform the person is on, not a
// site of their own; only the other signs (the name, a personal top level) make it one.
const PLATFORM_CUE_RE = /\b(?:find|follow|reach|visit)[ \t]+me[ \t]+on[ \t]*[:\-–—]?[ \t]*$/i;
// A job title or an employment verb before "at", "for" or "with" ("Senior Engineer at acme.dev", "worked for
// shipfast.dev", "joined acme.dev"), or an employer's label: the domain is the employer's. ("My work at jane.dev" is not.)
const EMPLOYER_BEFORE_RE =
  /(?:\b(?:engineer|developer|dev|manager|lead|intern|consultant|designer|analyst|architect|scientist|founder|co-?founder|cto|ceo|coo|vp|director|contractor|specialist|administrator|sre|tester|programmer|researcher|officer|employee|staff|worked|working|employed|hired)[ \t]+(?:at|for|with|by|@)|\b(?:joined|joining)|\b(?:company|employer|client|organi[sz]ation)[ \t]*[:\-–—])[ \t]*$/i;

/**
 * The words the text names an organisation by, lower-case: capitalised words that open no sentence, acronyms, and two
 * or three of them run together ("Acme Labs" gives "acme", "labs" and "acmelabs").
 */
function organisationWords(text: string): Set<string> {
  const words = new Set<string>();
  let run: string[] = [];
  let last = -2;
  for (const m of text.matchAll(/\p{Lu}[\p{L}\d&]{0,40}(?![\p{L}\d'’-])/gu)) {
    const w = m[0].toLowerCase().replace(/&/g, '');
    const opensSentence = /(?:^|[.!?:][ \t]*)$/.test(text.slice(Math.max(0, m.index - 3), m.index)) && m.index !== 0 && text[m.index - 1] !== '\n';
    if (opensSentence && !/^\p{Lu}{2,}$/u.test(m[0])) continue;
    run = m.index === last + 1 ? [...run, w].slice(-3) : [w];
    last = m.index + m[0].length;
    for (let i = 0; i < run.length; i++) words.add(run.slice(i).join(''));
  }
  return words;
}

/** The parts of the names of three letters or more, lower-case: a domain holding one is no organisation's. */
const namePartsOf = (names: string[]): string[] =>
  names.flatMap((n) => nameParts(foldName(n.normalize('NFKC')))).map((p) => p.toLowerCase()).filter((p) => p.length >= 3);

/** The name a domain is registered under, lower-case: "acme" for acme.dev, "bbc" for bbc.co.uk. */
function registeredName(domain: string): string {
  const labels = domain.toLowerCase().split('.');
  labels.pop();
  if (labels.length > 1 && /^(?:co|com|org|net|ltd|plc)$/.test(labels[labels.length - 1]!)) labels.pop();
  return (labels[labels.length - 1] ?? '').replace(/[^a-z0-9]/g, '');
}

interface SiteContext {
  text: string;
  spellings: NameSpellings;
  head: number;
  /** The parts of the person's names (namePartsOf). */
  nameParts: string[];
  /** Read once per text, when a domain first needs it. */
  organisations: () => Set<string>;
}

function isPersonalSite(start: number, domain: string, ctx: SiteContext): boolean {
  const { text, spellings, head } = ctx;
  if (isSkillForm(domain) || isInstitution(domain)) return false;
  const labels = domain.toLowerCase().split('.').slice(0, -1).filter((l) => l !== 'www');
  const letters = labels.join('').replace(/[^a-z]/g, '');
  // "B.Tech" and "M.Com" are degrees.
  if (letters.length < 2) return false;
  // Named after the person ("jane.doe.dev", "JaneDoe.io", "doej.app", "blog.janedoe.com"), in any case and anywhere.
  if (spelledBy(labels.join('.'), spellings) !== null || spelledBy(labels[labels.length - 1]!, spellings) !== null) return true;
  // A skill's own site ("python.org", "react.dev") is no person's.
  if (isSkillForm(labels[0] ?? '')) return false;
  const window = text.slice(Math.max(0, start - WINDOW), start);
  const pre = window.slice(window.lastIndexOf('\n') + 1);
  const rest = text.slice(start + domain.length, start + domain.length + WINDOW);
  const post = rest.indexOf('\n') === -1 ? rest : rest.slice(0, rest.indexOf('\n'));
  if (CUE_RE.test(pre) && !PLATFORM_CUE_RE.test(pre)) return true;
  const ownSpelling = domain === domain.toLowerCase() && !labels.some(isSkillForm) && !isWellKnownSite(domain);
  // An employer's domain, or one the text names its organisation by ("Acme Labs (acmelabs.dev)", "BBC ... bbc.co.uk"),
  // unless it holds a part of the person's name ("Freelance developer at janecodes.dev" is Jane's).
  const organisation = () => {
    const registered = registeredName(domain);
    if (ctx.nameParts.some((p) => registered.includes(p))) return false;
    return EMPLOYER_BEFORE_RE.test(pre) || ctx.organisations().has(registered);
  };
  if (ownSpelling && (PROSE_CUE_RE.test(pre) || isPersonalTld(domain)) && !organisation()) return true;
  if (!CELL_BEFORE.test(pre) || !CELL_AFTER.test(post)) return false;
  if (onContactLine(pre, post)) return true;
  return start < head && ALONE_BEFORE.test(pre) && ALONE_AFTER.test(post);
}

/**
 * Replaces bare domains that are someone's own site with [URL]. names: the person's known and found names; head: the
 * text is a resume, whose first lines are its header (false for short fields, where a lone "Fly.io" is a skill).
 */
export function scrubPersonalSites(text: string, names: string[], head: boolean): string {
  let ctx: SiteContext | undefined;
  let out = '';
  let copied = 0;
  for (let dot = text.indexOf('.', 1); dot !== -1; dot = text.indexOf('.', dot + 1)) {
    // Most dots end a sentence: a TLD starts with a letter.
    const next = text.charCodeAt(dot + 1) | 0x20;
    if (next < 0x61 || next > 0x7a) continue;
    BARE_DOMAIN_AT_DOT.lastIndex = dot;
    const m = BARE_DOMAIN_AT_DOT.exec(text);
    if (m === null) continue;
    const start = m.index + 1 - m[1]!.length;
    const end = m.index + m[0].length;
    if (ctx === undefined) {
      let organisations: Set<string> | undefined;
      ctx = { text, spellings: nameSpellings(names), head: head ? headEnd(text) : 0, nameParts: namePartsOf(names), organisations: () => (organisations ??= organisationWords(text)) };
    }
    if (start < copied || !isPersonalSite(start, text.slice(start, end), ctx)) continue;
    out += `${text.slice(copied, start)}[URL]`;
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
