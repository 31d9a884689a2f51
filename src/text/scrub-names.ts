// Names in text: those the caller knows (the candidate's, in any spelling), and those the text shows as a name (a
// resume's header or "Name:" line, a role's contact). Part of the scrubber (scrubber.ts), which calls these last.
import { isForeignJobTitle } from './foreign-job-titles.js';
import { isGivenName } from './nicknames.js';
import { PII_PLACEHOLDERS, type PiiPlaceholder } from './pii-placeholders.js';
import { isPlaceName } from './place-names.js';
import { isSkillForm } from './skills.js';
import { isWellKnownSite } from './well-known-sites.js';

// A person's own name's label in English ("Name:", "Full name:", "Name of the candidate:") and as other languages write
// it ("Nombre:", "Nom :", "Prénom :", "Vorname:", "Nachname:", "Nome:", "Naam:", "姓名:", "氏名:", "이름:").
const OWN_NAME_LABEL =
  "(?:(?:full|candidate|applicant)[ \\t]+)?name(?:[ \\t]+of[ \\t]+(?:the[ \\t]+)?(?:candidate|applicant))?" +
  '|nombre(?:[ \\t]+completo)?|apellidos?|nom(?:[ \\t]+complet)?|pr[ée]nom|vorname|nachname|familienname|nome(?:[ \\t]+completo)?|cognome' +
  '|sobrenome|naam|voornaam|achternaam|姓名|氏名|이름|성명';
// Those, and a relative's ("Father's Name:", "Spouse's name:", "Spouse:", "Husband:"), as some resumes give them.
const NAME_LABEL_RE = new RegExp(
  `^([ \\t]*(?:[-•*][ \\t]*)?(?:${OWN_NAME_LABEL}|(?:father|mother|parent|spouse|husband|wife|guardian)['’]?s[ \\t]+name|spouse|husband|wife)[ \\t]*[:\\-–—][ \\t]*)([^\\n]*)$`,
  'gimu',
);
export const PARTICLES = new Set('de da del della der den van von la le du dos das di bin binti al el ibn st'.split(' '));
// Words that make a capitalised line a heading or a title rather than a person.
export const NOT_NAME_WORDS = new Set(
  ('resume curriculum vitae cv phone number mobile email mail address location linkedin github website portfolio name summary profile objective experience education skills skill contact information info professional work employment history projects project certifications certification references reference referees referee achievements awards languages interests hobbies personal details technical core competencies qualifications career about overview highlights publications training courses volunteer activities page cover letter dear sincerely regards ' +
    'ninja guru expert enthusiast freelancer contractor researcher tester artist photographer engineer developer manager analyst scientist designer architect administrator admin consultant specialist director lead senior junior intern officer coordinator assistant associate executive representative accountant nurse teacher programmer technician software data web full stack frontend backend front back end devops product project marketing sales hr human resources finance financial business operations support customer service network system systems database cloud security mobile ios android java python javascript machine learning head chief vp president founder owner student graduate recruiter writer editor trainer physician doctor pharmacist therapist attorney lawyer paralegal clerk cashier driver chef agent flutter django php node wordpress ' +
    'inc ltd llc company technologies solutions university college school institute bank group corporation the and of for at in on to with new york san los united states kingdom india ' +
    // The labels of a personal details section ("Passport No — A1234567" on a first line is no header name).
    'passport license licence no id dob date birth signature declaration place nationality gender marital status religion visa ' +
    // "I'm Sam Keller" and "I Am Sam Keller" introduce a name (introduced-names.ts); they are no part of it.
    'im am').split(' '),
);
const NAME_WORD = /^(?:\p{Lu}[\p{L}'’-]*\.?|\p{Lu}\.)$/u;
export const COMMON_WORD_NAMES = new Set('will may mark grant bill rose summer hope faith joy dawn june april august grace sky river bob jack art guy penny ray sunny frank rich gay amber ruby crystal chase hunter'.split(' '));

// Surnames (and a few short given names) that are also words a sentence or a company uses ("mentored young engineers",
// "enterprise sales", "Green Energy (green.io)"): like the common-word first names, removed alone only when capitalised,
// and no spelling of an address or a site alone (name-spellings.ts).
export const WORD_NAMES = new Set(
  ('brown green white black gray grey young king wood woods stone fox cook hill hills park bell rice long short little ' +
    'hall ward lane bush field fields march price cash gold silver reed moss frost snow day case page love star song wolf ' +
    'bird fish dean hart law best bond booth bright burns chance cross dale early fair ford friend glass good hand hardy ' +
    'hay head house hunt lamb land lord major mann miles mills moon north west south east noble paris penn pike pool ' +
    'power ring rivers rock root rush sage salt sharp shaw small spring still strong sweet tall temple tower vale wall ' +
    'walls wise wing lead sales link max key low sun tan lim lin kim lee ali ash ace son man can jan don gil ben ram').split(' '),
);
// Those of them that prose seldom writes in lower case, where a lower-case one is more likely the name than a word.
const NAMES_MORE_THAN_WORDS = new Set('lee kim lin lim ali gil ben jan don ram tan penn mann dean hart shaw'.split(' '));
/** Whether a name part (lower-case) is a word a text writes for itself: removed alone only when capitalised. */
export const isWordName = (part: string): boolean => COMMON_WORD_NAMES.has(part) || (WORD_NAMES.has(part) && !NAMES_MORE_THAN_WORDS.has(part));

/**
 * Whether the name's word at i is a surname though it is a skill or a listed word ("Swift" in "Tom Swift", "Python" in
 * "Maria Python"): the last of two or more, after a common given name. Such a part is removed alone only after a title or
 * an initial (scrubNames), as a known name's is.
 */
export const isSkillSurname = (words: string[], i: number): boolean =>
  i > 0 && i === words.length - 1 && isGivenName(words[0]!) && isSkillForm(words[i]!.toLowerCase().replace(/[.'’]/g, ''));

function looksLikeName(value: string): boolean {
  if (/[\d@[\]/:|]/.test(value)) return false;
  const words = value.trim().split(/[ \t]+/).filter((w) => !PARTICLES.has(w));
  if (words.length < 2 || words.length > 4 || isPlaceName(value)) return false;
  // The title comes first in such a line; a surname that ends as a title does comes last ("Mark Leiter", "Katrin
  // Schleiter" are people).
  if (isForeignJobTitle(words[0]!)) return false;
  // A skill is no name ("Golang Ninja"), unless it is a first name too ("Ruby").
  const word = (w: string) => w.toLowerCase().replace(/[.'’]/g, '');
  // A nickname in quotes or brackets between the parts is part of the name ('Robert "Robbie" Chen').
  const unquoted = words.map((w, i) => (i > 0 && i < words.length - 1 ? w.replace(/^["“(](.+)["”)]$/u, '$1') : w));
  // An initial is never a skill ("Emily R. Thompson", "John C. Whitfield": R and C are languages).
  return unquoted.every(
    (w, i) =>
      NAME_WORD.test(w) &&
      (/^\p{Lu}\.$/u.test(w) || isSkillSurname(unquoted, i) || (!NOT_NAME_WORDS.has(word(w)) && (!isSkillForm(word(w)) || COMMON_WORD_NAMES.has(word(w))))),
  );
}

// A contact named in a role ("Hiring manager Jane Roe", "Contact: Jane Roe"): the name is unknown in advance.
// Case-sensitive on purpose (\p{Lu} under the i flag would take any letter), so each label spells its capitals.
// "Contact" and "Recruiter" need punctuation before the name: "Contact Center Manager" is a job title.
const CONTACT_NAME_RE = /(?<![\p{L}])((?:(?:[Hh]iring[ \t]+[Mm]anager|HIRING MANAGER|[Rr]each[ \t]+out[ \t]+to|[Aa]sk[ \t]+for)[ \t]*[:\-–—,]?|(?:[Rr]ecruiter|RECRUITER|[Cc]ontact(?:[ \t]+[Pp]erson)?|CONTACT|[Aa]nsprechpartner(?:in)?|[Ii]nterlocuteur)[ \t]*[:\-–—,])[ \t]*)(\p{Lu}[\p{L}'’.-]{0,30}(?:[ \t]\p{Lu}[\p{L}'’.-]{0,30}){1,2})(?![\p{L}'’.-])/gu;

const NOT_CONTACT_WORDS = new Set('interview interviews team teams department process round rounds screen screening call calls panel approval review shall must should can form page portal details us our hiring talent people'.split(' '));

function decideContactName(all: string, label: string, value: string): string {
  // The first word must be no title, heading or skill ("Recruiter Coordination" is no person).
  const first = value.split(/[ \t]/)[0]!.toLowerCase().replace(/[.'’]/g, '');
  if (!/^\p{Lu}/u.test(value) || NOT_NAME_WORDS.has(first) || NOT_CONTACT_WORDS.has(first) || (isSkillForm(first) && !COMMON_WORD_NAMES.has(first))) return all;
  return `${label}[NAME]`;
}

/** The parts of a name of two letters or more; particles ("de", "van", "Le") only if asked, as a whole name holds them. */
export function nameParts(value: string, withParticles = false): string[] {
  return value
    .split(/[\s-]+/)
    .map((p) => p.replace(/^[^\p{L}]+|[^\p{L}\p{M}]+$/gu, ''))
    .filter((p) => p.length >= 2 && (withParticles || !PARTICLES.has(p.toLowerCase())));
}

// A heading word before the header's name on its line: "Resume of Jane Roe", "CV - Jane Roe", "Curriculum Vitae: Jane
// Roe", "RESUME – JANE ROE", "Biodata of ...".
const HEADING_PREFIX = /^[ \t]*(?:resume|résumé|cv|c\.v\.|curriculum[ \t]+vitae|bio[ \t-]?data)(?:[ \t]+of[ \t]*[:\-–—]?|[ \t]*[:\-–—][ \t]*(?:of[ \t]+)?)[ \t]*/iu;

// The words of fields a resume's heading may name instead of its person.
const FIELD_WORDS = new Set(
  ('management supply chain health public design graphic banking investment research clinical engineering civil mechanical electrical ' +
    'chemical energy science sciences studies analytics accounting economics medicine nursing pharmacy logistics consulting administration ' +
    'hospitality retail insurance communications journalism architecture biology chemistry physics mathematics statistics law').split(' '),
);

// A Markdown heading's marks before the header ("# Jane Roe", "## JANE ROE"), and emphasis around its name ("**Jane
// Roe** | Engineer").
const MARKDOWN_HEADING = /^[ \t]{0,3}#{1,6}[ \t]+/;
const MARKUP = /^[ \t]*(?:\*{1,2}|_{1,2})|(?:\*{1,2}|_{1,2})[ \t]*$/g;

// From its bracket: a pattern starting with a run of spaces would try each of them over a line of thousands.
const TRAILING_ASIDE = /\([^()\n]{1,40}\)[ \t]*$/;
// Two to four words of two to twenty capital letters, each letter a space apart, the words two or more apart.
const LETTER_SPACED = /^\p{Lu}(?: \p{Lu}){1,19}(?:[ \t]{2,6}\p{Lu}(?: \p{Lu}){1,19}){1,3}[ \t]*$/u;

/**
 * Replaces the header name line: the first line with letters (a lone "Resume"/"CV" heading may come before it, or stand
 * before the name on its line).
 */
export function scrubHeaderName(text: string, found: string[], opts: { givenNameFirst?: boolean } = {}): string {
  const lines = text.split('\n');
  for (let i = 0, seen = 0; i < lines.length && seen < 3; i++) {
    const line = lines[i]!;
    if (!/\p{L}/u.test(line)) continue;
    seen++;
    const marks = MARKDOWN_HEADING.exec(line)?.[0] ?? '';
    const prefix = marks + (HEADING_PREFIX.exec(line.slice(marks.length))?.[0] ?? '');
    const rest = line.slice(prefix.length);
    // An aside in brackets after the name is no part of it ("Jane Roe (she/her)", "Jane Roe ([PERSONAL])").
    const head = rest.split(/[|•·,]| [-–—] /)[0]!.replace(MARKUP, '');
    const first = head.replace(TRAILING_ASIDE, '').trimEnd();
    // A common given name alone in that aside is the person's nickname ("Katherine Roe (Kate)").
    const nickname = /^[ \t]*\([ \t]*(\p{Lu}[\p{Ll}'’-]{1,20})[ \t]*\)[ \t]*$/u.exec(head.slice(first.length))?.[1];
    const spaced = LETTER_SPACED.exec(first.trim())?.[0];
    if (spaced !== undefined) {
      // A name spelled out letter by letter, its words apart by wider gaps ("J A N E   R O E"): found as its words.
      const joined = spaced.split(/[ \t]{2,}/).map((w) => w.replace(/[ \t]/g, '')).join(' ');
      if (looksLikeName(joined) && (!opts.givenNameFirst || isGivenName(joined.split(' ')[0]!))) {
        found.push(joined);
        lines[i] = prefix + rest.replace(spaced, '[NAME]');
        return lines.join('\n');
      }
    }
    const name = headerName(first);
    // After a heading, a field ("Resume – Supply Chain Management", "CV: Clinical Research") is no person.
    const field = prefix !== '' && name.split(/[ \t]+/).some((w) => FIELD_WORDS.has(w.toLowerCase()));
    // With a Name: line in the head, the first line is a person's only if it starts with a common given name: else it
    // is a banner or an employer ("Power BI | SQL", "Wells Fargo"), whose words would be removed wherever capitalised.
    if (!field && looksLikeName(name) && (!opts.givenNameFirst || isGivenName(name.split(/[ \t]+/)[0]!))) {
      found.push(name);
      if (nickname !== undefined && isGivenName(nickname)) found.push(nickname);
      lines[i] = prefix + rest.replace(name, '[NAME]');
      return lines.join('\n');
    }
    // A heading alone, or a heading and a field ("Resume – Supply Chain Management"): the name may be on the next line.
    // After a job title or a Markdown heading ("# Senior Engineer\nWells Fargo") the next line is an employer's.
    if (!field && !/^[\s\p{P}]*(?:resume|résumé|cv|curriculum vitae|lebenslauf|biodata|bio-data)[\s\p{P}]*$/iu.test(line)) break;
  }
  return text;
}

export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Titles written with a name that are no part of it: an honorific before it ("Dr.", "Ms"), generations and degrees after
// it ("Jr.", "III", "PhD", "MBA"). Taken into the name, each was removed wherever the text writes it ("Jr. Developer",
// "an MBA"); they stay where they stand. Spelled as written and in capitals: case-sensitive, as "\p{Lu}" under the i flag
// takes any letter.
const spelled = (titles: string) => [...new Set(titles.split(' ').flatMap((t) => [t, t.toUpperCase()]))].map(escapeRe).join('|');
/** An honorific and the space after it, as a pattern. */
export const HONORIFIC = `(?:${spelled('Dr Mr Mrs Ms Mx Prof Miss Sir Dame Engr Atty Rev Hon')})\\.?[ \\t]{1,3}`;
const LEADING_HONORIFIC = new RegExp(`^[ \\t]*${HONORIFIC}`, 'u');
// Each bounded and at least two letters long, maybe after a comma ("Jane Roe, Ph.D., PMP"): the run is linear.
const POST_NOMINALS = new RegExp(
  `^(?:[ \\t]{0,3},?[ \\t]{0,3}(?:${spelled('Jr Sr II III IV PhD Ph.D DPhil MD M.D MBA MSc M.Sc MS MA MEng BSc B.Sc BS BA BEng CPA CFA PMP PE P.Eng Esq RN JD LLM LLB MPH DDS CISSP MBBS MRCP FRCS ACA ACCA CIMA BSN MSN FNP PharmD DPT')})\\.?(?![\\p{L}\\d]))+`,
  'u',
);

/**
 * The name without the generations and degrees written after it, and what follows them: "Jane Doe" and " and I" of
 * "Jane Doe MBA" + " and I", "John Smith" and "." of "John Smith Jr" + ".". The first word is always kept.
 */
export function withoutPostNominals(name: string, after: string): { name: string; after: string } {
  const text = name + after;
  // A full stop after the last title may end the sentence too ("My name is Jane Doe PhD. I ..."): it is left to what follows.
  const past = (run: string) => run.length - (run.endsWith('.') ? 1 : 0);
  for (const gap of name.matchAll(/[ \t]+/g)) {
    const run = POST_NOMINALS.exec(text.slice(gap.index));
    if (run) return { name: name.slice(0, gap.index), after: text.slice(gap.index + past(run[0])) };
  }
  const run = POST_NOMINALS.exec(after);
  return { name, after: run ? after.slice(past(run[0])) : after };
}

/** A header's name without its titles: "Jane Doe" of "Dr. Jane Doe" or "Jane Doe MBA". */
const headerName = (first: string): string => withoutPostNominals(first.trim().replace(LEADING_HONORIFIC, ''), '').name;

const APOSTROPHES = /[’‘ʼʹ`´′]/;
/**
 * Folds what spellings of one name differ in: apostrophes ("O’Brien" is "O'Brien") and diacritics ("José" is
 * "Jose"). One UTF-16 unit in, one out, so a match in the folded text is at the same place in the original.
 */
export function foldName(text: string): string {
  if (!/[\u0080-\uffff]/.test(text)) return text;
  return text.replace(/[\u0080-\uffff]/g, (ch) => {
    if (APOSTROPHES.test(ch)) return "'";
    const base = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    return base.length === 1 ? base : ch;
  });
}

const nameRegexes = new Map<string, { re: RegExp; parts: string[] } | null>();
// Scripts whose words are not set apart by spaces, or whose names take particles without one: Chinese, Japanese, Korean.
// (Thai names are written with a space between their parts, which are words too: "ใจดี" is "kind".)
const SPACELESS_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// Japanese and Korean particles and honorifics after a name: は が を に の と で も へ や さん 様; 은 는 이 가 을 를 의 에 님 씨 과 와 도.
const PARTICLE_AFTER = '(?:[はがをにのとでもへや]|さん|様|[은는이가을를의에님씨과와도])';

/** One pattern for the whole names first ("Ada Lovelace" becomes one [NAME]), then each part on its own. */
function nameRegex(names: string[]): { re: RegExp; parts: string[] } | null {
  // Compiling a pattern costs more than running it, and pools repeat names: keep a small cache.
  const key = names.join('\u0000');
  const cached = nameRegexes.get(key);
  if (cached !== undefined) return cached;
  const partLists = names.map((n) => nameParts(foldName(n.normalize('NFKC')))).filter((parts) => parts.length > 0);
  // A whole name keeps its particles: "Anh Le" and "Ludwig van Beethoven" are one name each, not "[NAME] Le".
  const wholeLists = names.map((n) => nameParts(foldName(n.normalize('NFKC')), true));
  const wholes = wholeLists
    .filter((parts) => parts.length > 1)
    .map((parts) => parts.map(escapeRe).join(SPACELESS_SCRIPT.test(parts.join('')) ? '[ \\t]*' : '[ \\t]+'));
  const singles = partLists.flat().filter((p) => !PII_PLACEHOLDERS.includes(`[${p.toUpperCase()}]` as PiiPlaceholder)).map(escapeRe);
  const alternatives = [...new Set([...wholes.sort((a, b) => b.length - a.length), ...singles.sort((a, b) => b.length - a.length)])];
  const parts = [...new Set(partLists.flat().map((p) => p.toLowerCase()))];
  // A whole name in a script written without spaces between words ("我叫王伟，", "김민준입니다") has letters on both
  // sides; one part of it alone keeps its boundaries ("本田" of 本田 花子 is in 本田技研工業).
  const whole = new Set([...wholes, ...wholeLists.filter((parts) => parts.length === 1).map((parts) => escapeRe(parts[0]!))]);
  const spaceless = alternatives.filter((a) => whole.has(a) && SPACELESS_SCRIPT.test(a));
  const bounded = alternatives.filter((a) => !spaceless.includes(a));
  // One part alone before a particle ("山田は", "민준은"): the word it is a part of ends there.
  const particled = bounded.filter((a) => SPACELESS_SCRIPT.test(a));
  const pattern = [
    ...(bounded.length ? [`(?<![\\p{L}\\p{N}_\\[])(?:${bounded.join('|')})(?![\\p{L}\\p{N}_])`] : []),
    ...(spaceless.length ? [`(?:${spaceless.join('|')})`] : []),
    ...(particled.length ? [`(?<![\\p{L}\\p{N}_\\[])(?:${particled.join('|')})(?=${PARTICLE_AFTER})`] : []),
  ].join('|');
  const re = alternatives.length === 0 ? null : { re: new RegExp(pattern, 'giu'), parts };
  if (nameRegexes.size >= 512) nameRegexes.clear();
  nameRegexes.set(key, re);
  return re;
}

/**
 * Whether one part of a name, met on its own, is a word the text uses for something else: a skill ("Go" for Mark Go,
 * "Ruby" for Ruby Chen, as in a skills field) or a well-known company's domain ("apple.com" for Jane Apple). The
 * whole name is still removed wherever it is written.
 */
function sharedWord(part: string, after: string): boolean {
  if (isSkillForm(part.toLowerCase())) return true;
  const domain = /^(?:\.[a-z0-9-]{1,63}){1,3}(?![\w-])/i.exec(after)?.[0];
  return domain !== undefined && isWellKnownSite(part + domain);
}

// A title before a name part makes it the person's, even when it is a skill ("Ms. Swift", "Mr Go", "Dr Rust").
const HONORIFIC_BEFORE = /(?:^|[^\p{L}])(?:mr|mrs|ms|miss|mx|dr|prof|sir|dame)\.?[ \t]+$/iu;

/**
 * Removes the names as whole words; common-word names ("Will", "May", "Young") alone only when capitalised, and a part
 * that is a skill or a well-known site's name only within the whole name or after a title. notAllCapitals: a name in
 * capitals only is left (an acronym: "SAM").
 */
export function scrubNames(text: string, names: string[], caseInsensitive: boolean, notAllCapitals = false): string {
  const compiled = nameRegex(names);
  if (!compiled) return text;
  // Matched in the folded text, replaced in the original: both have the same length.
  const folded = foldName(text);
  // A plain substring test first: the unicode-aware pattern is slow, and most texts hold no name.
  const lower = folded.toLowerCase();
  if (!compiled.parts.some((p) => lower.includes(p))) return text;
  // A letter of a script without case ("王") is as a capital.
  const capitalised = (hit: string) => hit[0] !== hit[0]!.toLowerCase() || hit[0] === hit[0]!.toUpperCase();
  // A whole name is the name in any case ("will smith"); one part alone that is a word only when capitalised.
  const plainWord = (hit: string) => /[ \t]/.test(hit) || !isWordName(hit.toLowerCase());
  let out = '';
  let copied = 0;
  for (const m of folded.matchAll(compiled.re)) {
    const hit = text.slice(m.index, m.index + m[0].length);
    if (!(capitalised(hit) || (caseInsensitive && plainWord(hit))) || (notAllCapitals && hit === hit.toUpperCase())) continue;
    const titled = HONORIFIC_BEFORE.test(folded.slice(Math.max(0, m.index - 8), m.index));
    if (!/[ \t]/.test(hit) && !titled && sharedWord(hit, folded.slice(m.index + hit.length, m.index + hit.length + 200))) continue;
    out += `${text.slice(copied, m.index)}[NAME]`;
    copied = m.index + m[0].length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Most distinct "Name:" values a text adds to found: each is then looked for wherever the text writes it, at a cost
 * that grows with their number times the text's length (a 100 KB text of "Name:" lines took 13 s). Every one is
 * replaced on its own line all the same; a resume names a few people, not hundreds.
 */
const MAX_LABELLED_NAMES = 8;

// A "Name:" line of the resume's own person (not a relative's), and its value.
const OWN_NAME_LABEL_RE = new RegExp(`^[ \\t]*(?:[-•*][ \\t]*)?(?:${OWN_NAME_LABEL})[ \\t]*[:\\-–—][ \\t]*([^\\n]*)$`, 'iu');
// The head of a resume: a person's own "Name:" line is among its first lines; one further down names a project or
// a referee ("Project 1\nName: Inventory System"), and says nothing of the first line.
const HEAD_LINES = 6;

/**
 * Whether the text names its person on a "Name:" line in its head, with a value that reads as a name: then its first
 * line is no header name (scrubHeaderName), but a banner or an employer.
 */
export function hasOwnNameLabel(text: string): boolean {
  let seen = 0;
  for (const line of text.split('\n', 40)) {
    if (!/\p{L}/u.test(line)) continue;
    const value = OWN_NAME_LABEL_RE.exec(line)?.[1];
    if (value !== undefined) return looksLikeName(headerName(value.split(/[ \t]{2,}|\t|[|•·,]/)[0]!));
    if (++seen >= HEAD_LINES) return false;
  }
  return false;
}

/** Replaces the value of a "Name:" line, and adds it to found (the value ends at a column gap or the next "Label:"). */
export function scrubNameLabel(text: string, found: string[]): string {
  const labelled = new Set<string>();
  return text.replace(NAME_LABEL_RE, (all, label: string, value: string) => {
    // "Name: Ann Lee   Experience: 2 years".
    const cut = /[ \t]{2,}|\t|[ \t][|•·][ \t]|[,;][ \t]*[\p{L} ]{1,30}:/u.exec(value);
    const v = (cut ? value.slice(0, cut.index) : value).trim();
    if (v === '' || v.includes('[') || /\d|@/.test(v) || v.split(/\s+/).length > 5) return all;
    if (!labelled.has(v) && labelled.size < MAX_LABELLED_NAMES) {
      labelled.add(v);
      found.push(v);
    }
    return label + value.replace(v, '[NAME]');
  });
}

/** A capitalised name right after a contact label, as roles write it ("Hiring manager Jane Roe"). */
export function scrubContactNames(text: string): string {
  return text.replace(CONTACT_NAME_RE, decideContactName);
}
