// PII scrubbing as code-law: the only way resume text reaches agents, prompts and logs. E-mails, phones, names
// and personal sites have their own modules (scrub-*.ts); links, addresses and the order of it all are here. What each
// version of the rules changed: scrub-rules-version.ts.
//
// Every pattern is linear: bounded or unambiguous quantifiers only, and candidates that need judgement (is this
// digit run a phone or a year range?) are matched broadly and decided in code.
import { findIntroducedNames } from './introduced-names.js';
import { impliedNames, scrubNameForms } from './name-forms.js';
import { nameSpellings, spelledBy, type NameSpellings } from './name-spellings.js';
import { replaceDecided } from './replace-decided.js';
import { scrubEmails } from './scrub-emails.js';
import { scrubInlineHandles } from './scrub-handles.js';
import { escapeRe, hasOwnNameLabel, scrubContactNames, scrubHeaderName, scrubNameLabel, scrubNames } from './scrub-names.js';
import { scrubIdentity } from './scrub-identity.js';
import { scrubPersonal } from './scrub-personal.js';
import { KNOWN_PHONE_SEPARATORS, scrubPhones } from './scrub-phones.js';
import { scrubPersonalSites } from './scrub-sites.js';
import { isSkillForm } from './skills.js';

export { SCRUB_RULES_VERSION } from './scrub-rules-version.js';

export interface ScrubOptions {
  /** The candidate's known names (full names or parts); every part of 2+ letters is removed. */
  names?: string[];
  /** The candidate's own email addresses: removed wherever they occur, whatever the patterns make of them. */
  emails?: string[];
  /** The candidate's own phone numbers: removed wherever their digits occur in that order, whatever the separators. */
  phones?: string[];
  /**
   * Whether a name may be guessed from the text's own shape (a header line, a "Name:" line) or words that introduce one
   * ("My name is ...", "Regards,\n..."). True for resumes;
   * false for short fields (a location, a skill, a role title) where "Buenos Aires" would be taken for a person.
   */
  detectNames?: boolean;
  /** Removes a capitalised name right after a contact label ("Hiring manager Jane Roe", "Contact: Jane Roe"): for roles. */
  contactNames?: boolean;
  /**
   * Whether labelled personal particulars ("Marital Status: Married") become [PERSONAL]: a person's text. False for a
   * role, whose "Weight: able to lift 25 kg" or "Children: experience with ages 3-5" is a requirement.
   */
  particulars?: boolean;
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
const LINK_LABEL_RE = /^([ \t]*(?:[-•*][ \t]*)?(?:(?:personal|my|own)[ \t]+)?(linkedin|github|gitlab|twitter|website|web[ \t]?site|web|portfolio|blog|homepage|home[ \t]page|site|url)(?:[ \t]+(?:id|handle|user[ \t]?name|profile|account))?[ \t]*[:\-–—][ \t]*)([^\s[\]]{2,2048})[ \t]*$/gim;
// A handle has a letter: "Twitter - 2015-2018" is an employer and its years.
const HANDLE = /^@?(?=[\w-]*[A-Za-z])[A-Za-z0-9_-]{2,39}$/;
// A labelled site inside a line ("Personal site: janedoe.com | ..."): the label says it is a link, so any domain
// counts, but a known skill ("Web: Node.js") does not. "web" alone is a skills heading, so it is not a label here.
const INLINE_SITE_RE = /(?<![\p{L}\d])((?:(?:personal|my|own)[ \t]+)?(?:website|web[ \t]?site|portfolio|blog|homepage|home[ \t]page|site|url)[ \t]*[:\-–—][ \t]*)((?:https?:\/\/)?[a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){1,4}(?:\/[^\s<>"'[\]()]{0,2048})?)/giu;
const SITE_HINT = /(?:site|url|portfolio|blog|homepage|home page)[ \t]*[:\-–—]/i;
const HANDLE_HINT = /(?:skype|telegram|discord|wechat|weixin|viber|instagram|tiktok|keybase|mastodon|twitter)/i;
// Messaging handles after their label ("Skype: jane.doe.1985", "Skype: live:jane.doe", "Discord: jane#1234", "Telegram:
// @janedoe", "Telegram @janedoe"), and a link to one on a bare host ("Telegram: t.me/janedoe", "Twitter: x.com/jdoe"):
// its path goes with it. After a dash for the colon, a value starts with a letter or "@": "Twitter - 2015-2018" is an
// employer and its years.
const HANDLE_LABEL_RE = /(?<![\p{L}\d])((?:skype|telegram|discord|wechat|weixin|viber|instagram|tiktok|keybase|mastodon|twitter)(?:[ \t]+(?:id|handle|name|username))?(?:[ \t]*[:：][ \t]*|[ \t]{1,3}[-–—][ \t]{1,3}(?=[A-Za-z@])|[ \t]{0,3}[-–—]?[ \t]{0,3}(?=@)))((?:live:)?@?[\w.-]{2,64}(?:#\d{4}(?!\d)|(?:\/[\w.@-]{1,64}){1,3}\/?)?)/giu;
// A code-hosting or LinkedIn handle inside a line ("GitHub ID: janesmith456 | Email: ..."): LINK_LABEL_RE takes one only
// at the end of its line. Without "ID", "username" and their like the label also heads skills ("GitHub: Actions, Pages"),
// so the handle then needs a mark of one (a digit, "_", "-", "."). A value running on into a path is a URL, found later.
// After a dash, as for messaging handles, a value starts with a letter or "@" ("Staff Engineer — GitHub — 2019–2023").
const PROFILE_HANDLE_HINT = /(?:github|gitlab|bitbucket|linkedin)[ \t]*(?:(?:id|handle|user[ \t]?name|profile|account)[ \t]*)?(?:[:：]|[-–—][ \t])/i;
const PROFILE_HANDLE_RE = /(?<![\p{L}\d])((?:github|gitlab|bitbucket|linkedin)([ \t]+(?:id|handle|user[ \t]?name|profile|account))?(?:[ \t]*[:：][ \t]*|[ \t]*[-–—][ \t]+(?=[A-Za-z@])))(@?[\w.-]{2,64})(?![\w.\-/@])/giu;

const MARKDOWN_LINK_TEXT_RE = /\[([^\s[\]]{0,200}[./@][^\s[\]]{0,200})\]\(\[URL\]\)/g;
// Link text that is a site or a handle ("mayapatel.design", "in/mayapatel", "@jdoe"), not a skill ("Next.js", "CI/CD").
const SITE_SHAPED = /^(?:@[\w.-]+|in\/[\w.-]+|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,24}(?:\/\S*)?)$/i;

/** Sentence punctuation after a link belongs to the sentence. */
const decideUrl = (m: RegExpExecArray): string => `[URL]${/[.,;:!?]+$/.exec(m[0])?.[0] ?? ''}`;

// ---- addresses ---------------------------------------------------------------------------------

const STREET_TYPES = 'Street St Avenue Ave Road Rd Boulevard Blvd Lane Ln Drive Dr Court Ct Parkway Pkwy Place Pl Square Sq Terrace Highway Hwy Way Close Crescent Circle Cir Trail Plaza Alley Mews Marg'.split(' ');
const STREET_ALT = [...STREET_TYPES, ...STREET_TYPES.map((s) => s.toUpperCase())].join('|');
const CAP_WORD = "[A-Z][A-Za-z'’.\\-]{0,30}";
// A whole word: "NW1" in "London NW1 6XE" is a postcode, not the start of a city name.
const CITY_WORD = "[A-Z][A-Za-z'’\\-]{0,30}(?![\\w'’\\-])";
const UK_POSTCODE = '[A-Z]{1,2}\\d[A-Z\\d]?[ \\t]\\d[A-Z]{2}';
const STREET_RE = new RegExp(
  // A name or an ordinal between the number and the street type: "2021   Square, San Francisco" is a year and an employer.
  `(?<![\\w.\\-])\\d{1,5}[A-Z]?(?:-\\d{1,5})?[ \\t]+(?:(?:${CAP_WORD}|\\d{1,3}(?:st|nd|rd|th))[ \\t]+){1,4}(?:${STREET_ALT})\\b\\.?` +
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
// An address after its label, in English ("Present Address:", "Address for Communication:") and as other languages
// write it ("Anschrift:", "Dirección:", "住所:").
const ADDRESS_LABEL_RE =
  /^([ \t]*(?:[-•*][ \t]*)?(?:(?:(?:home|mailing|postal|street|residential|permanent|current|present|local|correspondence)[ \t]+)?address(?:[ \t]+for[ \t]+(?:communication|correspondence))?|anschrift|adresse|direcci[oó]n|indirizzo|endere[cç]o|住所|주소|现居地|地址)[ \t]*[:：\-–—][ \t]*)(\S[^\n]*)$/gimu;

// ---- entry points ------------------------------------------------------------------------------

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
 * A code-hosting or LinkedIn handle inside a line: after "ID" and its like, or with a mark of a handle, or spelling
 * the person's name ("GitHub: janedoe | Email: ...").
 */
function scrubProfileHandles(text: string, spellings: NameSpellings | undefined): string {
  if (!PROFILE_HANDLE_HINT.test(text)) return text;
  const named = (value: string) => spellings !== undefined && spelledBy(value.replace(/^@|[.-]+$/g, ''), spellings) !== null;
  return text.replace(PROFILE_HANDLE_RE, (all: string, label: string, suffix: string | undefined, value: string, offset: number, whole: string) =>
    suffix || /[\d_.-]/.test(value.replace(/[.-]+$/, '')) || named(value) ? decideHandle(all, label, value, offset, whole) : all,
  );
}

// Characters that show nothing: soft hyphens, zero-width spaces and joiners, bidirectional marks, variation selectors
// (PDF and word-processor exports leave them inside words). Kept, "Ja\u00ADne" and "ja\u200Bne@x.com" hid from every
// pattern, though a model reads "Jane".
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

const cleanKnown = (values: string[] | undefined): string[] | undefined =>
  values?.map((v) => (/[\u0080-\uffff]/.test(v) ? v.normalize('NFKC').replace(INVISIBLE, '') : v));

/**
 * Line ends as "\n"; full-width and other compatibility forms ("＠", "０９０－１２３４") as the ASCII the patterns know (NFKC);
 * invisible characters removed. Also whether the text is ASCII, as most resumes are: passes for other marks can skip it
 * without a scan of their own.
 */
function normalizeInput(text: string): { text: string; ascii: boolean } {
  const out = text.replace(/\r\n?/g, '\n');
  return /[\u0080-\uffff]/.test(out) ? { text: out.normalize('NFKC').replace(INVISIBLE, ''), ascii: false } : { text: out, ascii: true };
}

/**
 * Replaces emails, phones, links, street addresses, labelled birth dates, identity numbers and personal particulars, and
 * the candidate's name with typed placeholders. Idempotent.
 * The result is NFKC-normalised, without invisible characters: "＠" and "０９０" come back as "@" and "090" wherever
 * they were not PII.
 */
export function scrub(text: string, opts: ScrubOptions = {}): string {
  return scrubShowing(text, opts).text;
}

/** The scrubbed text, and the names it showed (a header, a "Name:" line, an introduction): scrub() with what it found. */
export function scrubShowing(text: string, given: ScrubOptions = {}): { text: string; shown: string[] } {
  const input = normalizeInput(text);
  // The known values are read as the text is: a name written with a zero-width non-joiner ("حسین\u200Cزاده") is
  // found in a text that has lost it.
  const opts = { ...given, names: cleanKnown(given.names), emails: cleanKnown(given.emails), phones: cleanKnown(given.phones) };
  let out = input.text;
  // The known names spell addresses and handles ("questions: janedoe at acme.com"); names the text shows, once found.
  const known = opts.names?.length ? nameSpellings(opts.names) : undefined;
  out = scrubEmails(out, known);
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
  out = scrubInlineHandles(out);
  out = scrubProfileHandles(out, known);
  out = replaceDecided(out, SCHEME_URL_RE, decideUrl);
  if (DOMAIN_HINT.test(out)) {
    out = replaceDecided(out, PROFILE_URL_RE, decideUrl);
    out = replaceDecided(out, PATH_URL_RE, decideUrl);
  }
  // A Markdown link whose target was a link keeps no text that spells it ("[mayapatel.design]([URL])", "[in/mayapatel]").
  if (out.includes('([URL])')) out = out.replace(MARKDOWN_LINK_TEXT_RE, (all, text: string) => (SITE_SHAPED.test(text) && !isSkillForm(text) ? '[URL]' : all));
  // "Indirizzo" and "Dirección" also name a diploma's field and a management: their value holds a digit when it is an address.
  out = out.replace(ADDRESS_LABEL_RE, (all, label: string, value: string) => (/^[^:：]*(?:indirizzo|direcci)/i.test(label) && !/\d/.test(value) ? all : `${label}[ADDRESS]`));
  // A full street word ends a sentence, not an abbreviation: "Baker Street." keeps its full stop.
  out = out.replace(PO_BOX_RE, '[ADDRESS]').replace(STREET_RE, (hit) => (/[a-z]{4}\.$/.test(hit) ? '[ADDRESS].' : '[ADDRESS]'));
  if (GERMAN_STREET_HINT.test(out)) out = out.replace(GERMAN_STREET_RE, '[ADDRESS]');
  if (FRENCH_STREET_HINT.test(out)) out = out.replace(FRENCH_STREET_RE, '[ADDRESS]');
  out = out.replace(UK_POSTCODE_RE, '[ADDRESS]');
  if (/\d{5}/.test(out)) out = out.replace(US_ZIP_RE, '[ADDRESS]');
  // Before the phones: "SSN: 123-45-6789" is an identity number, not a phone.
  out = scrubIdentity(out);
  if (opts.particulars !== false) out = scrubPersonal(out);
  out = scrubPhones(out, input.ascii);
  // After the patterns, which give "(555) 123-4567" whole: the known values catch what no pattern recognised.
  out = scrubKnown(out, opts);

  const found: string[] = [];
  if (opts.contactNames) out = scrubContactNames(out);
  const detect = opts.detectNames !== false;
  if (detect) {
    // A resume that names its person on a "Name:" line in its head: a first line of capitalised words is then a
    // person's only if it starts with a common given name (scrubHeaderName).
    const labelled = hasOwnNameLabel(out);
    out = scrubNameLabel(out, found);
    out = scrubHeaderName(out, found, { givenNameFirst: labelled });
    findIntroducedNames(out, found);
  }
  const names = opts.names ?? [];
  // The middle names the known and shown names imply are names the text shows; their nicknames are looser still.
  const { middles, nicknames } = impliedNames(out, [...found, ...names]);
  found.push(...middles);
  if (found.length + nicknames.length > 0) {
    const spellings = nameSpellings([...found, ...nicknames, ...names]);
    out = scrubProfileHandles(scrubEmails(out, spellings), spellings);
  }
  // Once the names the text shows are found (a site is often named after its owner), and before they are replaced.
  out = scrubPersonalSites(out, [...found, ...nicknames, ...names], detect);
  out = scrubNameForms(out, [...found, ...names]);
  // Names found in the text itself are matched only when capitalised: a heuristic may misfire.
  out = scrubNames(out, found, false);
  out = scrubNames(out, nicknames, false, true);
  out = scrubNames(out, names, true);
  return { text: out, shown: found };
}

/** True when scrubbing would change the text: a cheap guard for logs and tests. */
export function containsPii(text: string, opts: ScrubOptions = {}): boolean {
  return scrub(text, opts) !== normalizeInput(text).text;
}
