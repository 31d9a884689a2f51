// E-mail addresses, written plainly or disguised ("jane . doe @ gmail . com", "jane [at] gmail [dot] com"). Part of
// the scrubber (scrubber.ts); every pattern is linear, as there.
import { spelledBy, type NameSpellings } from './name-spellings.js';
import { replaceDecided, type Decision } from './replace-decided.js';
import { isSkillForm } from './skills.js';

// Latin letters with diacritics too: "müller@beispiel.de" must not leave "mü" behind.
const LABEL = '[A-Za-z0-9_%+\\-\\u00C0-\\u024F]{1,64}';
const OPEN = '[\\[({<]';
const CLOSE = '[\\])}>]';
// "at" may also be spelled between dashes or underscores ("jane.doe -at- acme.com", "jane_doe _at_ acme.com").
const AT = `(?:@|${OPEN}[ \\t]?(?:at|@)[ \\t]?${CLOSE}|at(?= )|[-_]{1,2}at[-_]{1,2}(?= ))`;
// A dot may be spaced out ("jane . doe @ gmail . com"), bracketed ("[dot]", "(.)") or spelled (" dot ", " -dot- ").
const DOT = `(?:\\.|[ \\t]{1,2}\\.[ \\t]{1,2}|[ \\t]{0,2}${OPEN}[ \\t]?(?:dot|\\.)[ \\t]?${CLOSE}[ \\t]{0,2}| dot | [-_]{1,2}dot[-_]{1,2} )`;
// Anchored on the "at" so the engine skips ahead to it; the local part is read back by a lookbehind.
const EMAIL_RE = new RegExp(
  `${AT}(?<=(?<![\\w.%+\\-@\\u00C0-\\u024F])(${LABEL}(?:${DOT}${LABEL}){0,4})[ \\t]{0,2}${AT})[ \\t]{0,2}(${LABEL}(?:${DOT}${LABEL}){1,5})(?![\\w@\\u00C0-\\u024F])`,
  'gi',
);
// Cheap pre-checks: most resumes have no link or address, so the costlier patterns rarely run.
const EMAIL_HINT = /@|[[({<][ \t]?(?:at|dot)[ \t]?[\])}>]| dot | at [a-z0-9-]{1,30}\.|[-_]at[-_]{1,2} /i;
const TLDS = new Set('com org net edu gov mil int io co ai dev app me info biz us uk in de fr es it nl be ch at se no dk fi pl pt ie ca au nz jp cn sg hk br mx ru za email mail'.split(' '));
const MAIL_HOSTS = new Set('gmail googlemail yahoo ymail outlook hotmail live msn icloud me mac aol proton protonmail pm gmx yandex zoho mail email fastmail rediffmail qq 163'.split(' '));
const NOT_LOCAL_PARTS = new Set('worked work works working based located live lives living employed intern interned engineer developer manager analyst lead role job position experience team teams project projects company skilled expert proficient good great best me us him her them it this that is am are was were be been and or but who which student studied graduated degree senior junior'.split(' '));

// Before a bare " at ", an identifier rather than a word of prose: "jane.doe", "j_smith", "jdoe85". A dotted one is
// lower case ("Node.js", "B.Tech" and "ASP.NET" are not), has three letters and a label of two ("a.m", "i.e" are
// abbreviations) and does not end like a file or a domain ("config.yaml", "app.py"); a known skill form is none.
const DOTTED_LOCAL = /^[a-z][a-z0-9]*(?:\.[a-z0-9]+){1,4}$/;
const UNDERSCORED_LOCAL = /^[a-z0-9][\w.]*_[\w.]*[a-z0-9]$/i;
const NUMBERED_LOCAL = /^[a-z]{2,}[a-z.]*\d{2,}$/;
const FILE_OR_DOMAIN_END = new Set('js ts jsx tsx py rb go rs java kt cs cpp php sh sql json yaml yml xml html css md txt csv pdf exe net'.split(' '));
// An e-mail label, after which a bare " at " is an address whatever stands before it ("Email: janedoe at acme.com"),
// or a contact label, after which it is one if what stands before it is in lower case ("Contact: Jane at Acme" is not).
const EMAIL_LABEL_BEFORE = /\be-?mail(?:[ \t]+(?:id|address))?[ \t]*[:\-–—]?[ \t]*$/i;
const CONTACT_LABEL_BEFORE = /\bcontact(?:[ \t]+(?:info|information|details))?[ \t]*[:\-–—][ \t]*$/i;
// A column of a contact line ("Providence, RI | (123) 456-7890 | johndoe at acme.com"): the address is all of it.
const COLUMN_BEFORE = /(?:^|[\n|•·●▪])[ \t]*$/;
const COLUMN_AFTER = /^[ \t]*(?:[\n|•·●▪]|$)/;
// Words that hand over an address, after which a bare " at " is one whatever stands before it: "write to janedoe at
// acme.com", "email me at jdoe at acme.io", "reach me: janedoe at acme.com", "drop me a line at ...".
const MAIL_CUE_BEFORE =
  /(?:\b(?:write|e-?mail|mail|message|reach|contact|ping)[ \t]+(?:me|us)|\bwrite[ \t]+to|\bdrop[ \t]+(?:me[ \t]+|us[ \t]+)?a[ \t]+(?:line|note|mail|message)|\breachable|\bget[ \t]+in[ \t]+touch)(?:[ \t]+(?:at|on|to|via|by|through))?(?:[ \t]+e-?mail)?[ \t]*[:\-–—]?[ \t]*$/i;
// A dotted local part made only of job-title words is a title at a company, not an address: "team.lead at acme.com",
// "senior.engineer at shop.io". A role mailbox written that way is no person's contact either.
const TITLE_WORDS = new Set(
  ('team lead tech senior sr junior jr staff principal chief head engineer eng dev developer manager mgr product project program ' +
    'owner designer architect analyst data qa ops devops sre sales marketing hr support admin founder cofounder intern vp cto ceo ' +
    'cfo coo cio ciso director scientist researcher consultant associate assistant executive officer specialist coordinator').split(' '),
);

/** Whether text[from, to) is a whole column of its line, read from a few characters either side. */
function isWholeColumn(text: string, from: number, to: number): boolean {
  const lead = text.slice(Math.max(0, from - 8), from);
  const tail = text.slice(to, to + 8);
  // "^" and "$" stand for the text's own ends only: a window cut short inside a line says nothing.
  const leadOk = from <= 8 ? COLUMN_BEFORE.test(lead) : /[\n|•·●▪][ \t]*$/.test(lead);
  const tailOk = to + 8 >= text.length ? COLUMN_AFTER.test(tail) : /^[ \t]*[\n|•·●▪]/.test(tail);
  return leadOk && tailOk;
}

const isTitle = (local: string): boolean => local.split('.').every((l) => TITLE_WORDS.has(l.toLowerCase()));

function isLocalPart(local: string): boolean {
  if (UNDERSCORED_LOCAL.test(local) || NUMBERED_LOCAL.test(local)) return true;
  if (isTitle(local)) return false;
  if (!DOTTED_LOCAL.test(local) || isSkillForm(local)) return false;
  const labels = local.split('.');
  const last = labels[labels.length - 1]!;
  return (
    local.replace(/[^a-z]/g, '').length >= 3 &&
    labels.some((l) => l.length >= 2) &&
    !FILE_OR_DOMAIN_END.has(last) &&
    !TLDS.has(last)
  );
}

const LABEL_SEPARATOR = /[ \t]*(?:\.|[[({<][ \t]?(?:dot|\.)[ \t]?[\])}>]| dot | [-_]{1,2}dot[-_]{1,2} )[ \t]*/i;
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

function decideEmail(m: RegExpExecArray, text: string, spellings?: NameSpellings): Decision {
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
  // A bare " at " is English far more often than an address ("worked at Acme.com", "Node.js at Booking.com"): demand a
  // known TLD, and a mail host, a spelled-out dot, an identifier before the "at" or an e-mail label before that.
  if (gap === 0 || NOT_LOCAL_PARTS.has(local.toLowerCase()) || !TLDS.has(tld)) return null;
  const spelledDot = / dot /i.test(domain);
  const mailHost = MAIL_HOSTS.has((labels[0] ?? '').toLowerCase());
  const before = text.slice(Math.max(0, from - 32), from);
  const lower = /^[a-z0-9._-]+$/.test(local);
  // A column of its own is an address unless it reads as a title at a company ("Berlin | team.lead at acme.com | 2019").
  const column = lower && !isTitle(local) && isWholeColumn(text, from, to ?? m.index + token.length);
  // "Email marketing at acme.com" is a skill at a company: the word after "email" is no address when the two are a skill.
  const emailLabel = EMAIL_LABEL_BEFORE.test(before) && !(/e-?mail[ \t]+$/i.test(before) && isSkillForm(`email ${local}`));
  const labelled = emailLabel || MAIL_CUE_BEFORE.test(before) || (lower && CONTACT_LABEL_BEFORE.test(before)) || column;
  return spelledDot || mailHost || labelled || isLocalPart(local) || spellsOwner(local, spellings) ? { from, to, replacement: '[EMAIL]' } : null;
}

/**
 * Whether the local part spells the person's name: in full in any case ("janedoe", "JaneDoe", "jane-doe", "doej"), or
 * as one part in lower case ("jane at acme.com"; "Jane at Acme.com" is a person at a company).
 */
function spellsOwner(local: string, spellings: NameSpellings | undefined): boolean {
  if (spellings === undefined) return false;
  const spelled = spelledBy(local, spellings);
  return spelled === 'full' || (spelled === 'part' && local === local.toLowerCase());
}

/**
 * The text with its e-mail addresses replaced by [EMAIL]. spellings: the person's names, whose spelling before a bare
 * "at" makes an address of what would read as prose ("questions: janedoe at acme.com").
 */
export function scrubEmails(text: string, spellings?: NameSpellings): string {
  return EMAIL_HINT.test(text) ? replaceDecided(text, EMAIL_RE, (m, t) => decideEmail(m, t, spellings)) : text;
}
