// Names a text introduces with words of its own: "My name is Sam Keller", "I'm Sam Keller, a backend engineer", "Hi,
// I'm Sam", "colleagues call me Sam Keller", "Sam Keller here —", "This is Sam Keller", a sign-off ("Regards,\nSam
// Keller", "signed, Sam Keller"), a dash line ending the text ("— Sam Keller"), and a contact or referee label
// ("Contact: Sam Keller", "Referee: Dr. Jane Smith, Acme Corp", "References: John Doe (manager), Jane Roe (peer)"; in
// brackets a manager's, a supervisor's, a ref's, a lead's, an advisor's or a relation's too, a dash for the colon, and
// whom the brackets name next: "Jane Roe (manager: John Smith; peer: Sam Keller)", "(reports to: John Smith)", "(lead:
// John Smith and Jane Doe)", "(hiring manager: Jane Roe)", "(client contact: John Smith)"; at a line's start a
// manager's or a lead's: "Manager: John Smith", "Lead: Jane Roe"), and the lines under a references heading
// ("References\nJane Roe, Acme\n[PHONE]\n\nDr. Sam Keller", "Acme — reports to John Smith", "Goldman Sachs – Jane Doe,
// CTO"), and a declaration's signer (signed-declarations.ts). Part of the scrubber (scrubber.ts), which adds what is
// found here to the names the text shows, removed wherever they are written.
//
// The same words introduce what is no person ("I'm Senior Engineer", "I am Go developer", "Regards, The Acme Team",
// "This is Kubernetes"), and a wrong guess removes its words from the whole text. So a name here is one to three
// capitalised words (particles and initials between them; two at least in capitals), none a heading or job word, a skill
// (but a surname after a given name: "Tom Swift"), a listed place, or a word this module lists (adjectives,
// nationalities, days, organisations, the last words of places), ended, after any degrees ("MBA", "Jr."),
// by punctuation, the line's end or a word that ends an introduction ("and", "from"). All patterns start with a literal cue, a separator or a line's start and
// hold only bounded quantifiers: linear.
import { COMMON_WORD_NAMES, HONORIFIC, isSkillSurname, NOT_NAME_WORDS, PARTICLES, withoutPostNominals } from './scrub-names.js';
import { needsGivenOrTitle, PERSON_LABEL, PERSON_LABEL_WORDS } from './name-labels.js';
import { isGivenName } from './nicknames.js';
import { isPlaceName } from './place-names.js';
import { isSkillForm } from './skills.js';
import { isWellKnownName } from './well-known-sites.js';
import { NOT_INTRODUCED } from './not-introduced-words.js';
import { declarationSigners } from './signed-declarations.js';

const TITLE = `(?:${HONORIFIC})?`;
// A capitalised word with a lower-case letter or an apostrophe and a capital after its first ("Sam", "O'Brien", "McKay"),
// a word in capitals ("SMITH", "O’NEILL"; one alone is an acronym: plausibleName), or an initial ("P.").
const WORD = "(?:\\p{Lu}(?:\\p{Ll}|['’]\\p{Lu})[\\p{L}'’-]{0,30}|\\p{Lu}{2}[\\p{Lu}'’-]{0,30}|\\p{Lu}\\.)";
const PARTICLE = `(?:${[...PARTICLES].join('|')})`;
const NAME = `(${WORD}(?:[ \\t]{1,3}(?:${PARTICLE}[ \\t]{1,3}){0,2}${WORD}){0,2})`;
// Where a line or a sentence starts.
const STARTS = '(?<=^|\\n|[.!?][ \\t]{1,3})[ \\t]{0,8}';
const GREETING = '((?:Hi|Hello|Hey|Greetings|Good[ \\t]+(?:morning|afternoon|evening))(?:[ \\t]+(?:all|everyone|there|team|folks))?[ \\t]*[,!.—–-]?[ \\t]{1,3})?';

/** What introduces the name, and what must follow it. */
type Cue = 'prose' | 'opener' | 'signoff' | 'dash' | 'label';

// "My name is", "I'm", "I am", "call me", "I go by": anywhere.
const PROSE_RE = new RegExp(
  `(?<![\\p{L}'’])(?:[Mm]y[ \\t]+[Nn]ame[ \\t]+[Ii]s|MY[ \\t]+NAME[ \\t]+IS|[Mm]y[ \\t]+name['’]s|I['’]m|I[ \\t]+[Aa]m|[Cc]alls?[ \\t]+me|I[ \\t]+(?:also[ \\t]+|usually[ \\t]+)?go[ \\t]+by)[ \\t]{1,3}${TITLE}${NAME}`,
  'gu',
);
// "This is Sam Keller", "Sam Keller here": opening a line or a sentence, maybe after a greeting.
const OPENER_RE = new RegExp(`${STARTS}${GREETING}(?:[Tt]his[ \\t]+is[ \\t]{1,3}${TITLE}${NAME}|${NAME}[ \\t]+here(?![\\p{L}]))`, 'gu');
// A sign-off at the start of a line or a sentence, then the name on its line or on one of the next two.
const SIGNOFF_RE = new RegExp(
  `${STARTS}(?:(?:(?:[Kk]ind|[Bb]est|[Ww]arm(?:est)?|[Mm]any)[ \\t]+)?[Rr]egards|[Ss]incerely(?:[ \\t]+yours)?|[Yy]ours(?:[ \\t]+(?:truly|sincerely|faithfully|respectfully))?|` +
    `[Rr]espectfully(?:[ \\t]+yours)?|[Cc]ordially|[Ss]igned|[Tt]hanks|[Tt]hank[ \\t]+you|[Cc]heers|[Bb]est(?:[ \\t]+wishes)?|[Ww]ith[ \\t]+(?:thanks|gratitude|appreciation))` +
    `([ \\t]*[,:—–-]?[ \\t]*(?:\\n[ \\t]*){0,2})${TITLE}${NAME}`,
  'gu',
);
// "— Sam Keller" on the last line: how a letter is signed. An ASCII hyphen is a bullet ("- Public Speaking").
const DASH_RE = new RegExp(`^[ \\t]{0,8}(?:—|–|--)[ \\t]{0,3}${TITLE}${NAME}`, 'u');
// A label and the name after it: a manager's, a supervisor's, a ref's or a relation's in brackets or at a line's start
// (name-labels.ts), or a contact's or a referee's anywhere ("Contact: Sam Keller", "Referees - Dr. Jane Roe").
const LABEL_RE = new RegExp(
  `(?<![\\p{L}])(?:${PERSON_LABEL}|(?:[Cc]ontact(?:[ \\t]+[Pp]erson)?|CONTACT|[Rr]eferees?|REFEREES?|[Rr]eferences?|REFERENCES?)[ \\t]*[:\\-–—])[ \\t]*(${TITLE})${NAME}`,
  'gu',
);
// A contact label a word or two after an opening bracket is in brackets too: "(client contact: John Smith)".
const OPENS_BRACKET_BEFORE_WORDS = /[([][ \t]{0,3}(?:[\p{L}-]{1,20}[ \t]{1,3}){1,2}$/u;
// An opening bracket right before a label: the closing one ends its value ("Acme (Contact: Jane Roe)").
const OPENS_BRACKET = /[([][ \t]{0,3}$/;
// A heading over referees ("References", "REFEREES:", "Personal Referees -", "REFERENCES AVAILABLE"): their names are on
// the lines under it.
const REFERENCES_HEADING_RE = /^[ \t]*(?:(?:professional|personal|character)[ \t]+)?(?:references?|referees?)(?:[ \t]+available)?[ \t]*[:\-–—]?[ \t]*$/gim;
// A line saying they are given on request ("References available upon request", "Available on request."): it names no
// one, so it heads no section, and under a heading it ends the section.
const ON_REQUEST_RE = /^[ \t]*(?:(?:further|more|additional|other|professional|personal)[ \t]+)?(?:(?:references?|referees?)[ \t]*[:\-–—]?[ \t]*(?:(?:are|will[ \t]+be|can[ \t]+be)[ \t]+)?)?(?:(?:available|furnished|provided|supplied|given)[ \t]+)?(?:up)?on[ \t]+(?:request|demand)/i;
// A line under it that starts with a name, after a bullet or a number ("1. Jane Roe, Acme", "- Dr. Sam Keller").
const REFERENCE_ENTRY_RE = new RegExp(`^[ \\t]{0,8}((?:[-•*·]|\\d{1,2}[.)])[ \\t]{0,3})?(${TITLE})${NAME}`, 'u');
// Another referee further on a references line: the next of a list, after ";" or a closing bracket ("Jane Doe (Acme),
// Xiaoming Zhang (Globex)"), or after words of a relation ("Acme — reports to John Smith") or a column, a dash, a
// bracket or a comma ("Goldman Sachs – Jane Doe"), where employers and titles stand too (findFurtherReferees).
const FURTHER_REFEREE_RE = new RegExp(
  `(\\)[ \\t]{0,3}[,;]|[,;|/(:]|[ \\t](?:[-–—&]|and|to|under)(?=[ \\t]))[ \\t]{0,3}(?:and[ \\t]{1,3})?(${TITLE})${NAME}`,
  'gu',
);
/** How many lines under a references heading are read: a few referees, each with a title and a contact line or two. */
const REFERENCE_LINES = 30;
/** How much of a line is read for referees. */
const REFERENCE_LINE_CHARS = 400;
// A text with none of these has no introduction, sign-off or label to read (the labels' own words: name-labels.ts).
const CUE_HINT = new RegExp(
  `name|I['’]m|I am|call|go by|this is|here|regards|sincerely|yours|respectfully|cordially|sign|declar|certify|affirm|thank|cheers|best|with|—|–|--|contact|ref|${PERSON_LABEL_WORDS}`,
  'i',
);

// What ends an introduction in prose: punctuation, the end of the line, a contact detail ("<[EMAIL]>", "[PHONE]"), or a
// word that goes on about the person.
const PROSE_END = /^(?:$|[ \t]*(?:\n|$|[,.;:!?)(<—–]|-[ \t]|\[(?:EMAIL|PHONE|URL)\])|[ \t]+(?:and|from|here|but|who|aka)(?![\p{L}]))/u;
// What ends a name on a line of its own or a label's value: the line's end, a contact detail, or a column or a title.
const LINE_END = /^[ \t]*(?:$|\n|[,;|(<.!—–]|-[ \t]|\[(?:EMAIL|PHONE|URL)\])/u;
// The same, and a closing bracket, for a referee a title, a relation or a label in brackets names ("Jane Roe (reports to
// John Smith)", "Acme (Contact: Jane Roe)", "[manager: John Smith]"): a name alone in brackets after a title is its
// employer's ("Senior Engineer (Charles Schwab)"), and stays.
const LINE_END_IN_BRACKETS = /^[ \t]*(?:$|\n|[,;|()\]<.!—–/]|-[ \t]|\[(?:EMAIL|PHONE|URL)\])|^[ \t]{1,3}(?:and|&)[ \t]/u;
// "Contact: Mountain View, CA": a place has a state or a country after its comma. Two capitals that abbreviate a job title
// are none ("Jane Roe, VP Engineering", "Sam Keller, HR Manager").
const PLACE_AFTER = /^,[ \t]*(?:(?!(?:VP|HR|IT|QA|PM|UX)(?![\p{L}]))[A-Z]{2}(?![\p{L}])|USA|United|England|Scotland|Wales|Ireland|Canada|India|Germany|France|Spain|Italy|Australia|Netherlands)/u;

/** How many distinct names one text may introduce: its author and a few referees. A longer list is no letter. */
const MAX_INTRODUCED = 8;

function plausibleWord(w: string): boolean {
  if (/^\p{Lu}\.$/u.test(w)) return true;
  if (/['’]s?$/u.test(w) || w.split('-').some((seg) => !/^\p{Lu}/u.test(seg))) return false;
  const lower = w.toLowerCase().replace(/[.'’]/g, '');
  const parts = [lower, ...lower.split('-')];
  // A plural of such a word is none either ("Samba Developers", "Recruiters").
  const word = (p: string) => NOT_NAME_WORDS.has(p) || NOT_INTRODUCED.has(p);
  return parts.every((p) => !word(p) && !(p.endsWith('s') && word(p.slice(0, -1))) && !(isSkillForm(p) && !COMMON_WORD_NAMES.has(p)));
}

/** The name's words if they read as a person's name; null if not (a title, a skill, an organisation, an adjective, a place). */
function plausibleName(value: string, minWords: number): string | null {
  const words = value.split(/[ \t]+/).filter((w) => !PARTICLES.has(w));
  const full = words.filter((w) => !/^\p{Lu}\.$/u.test(w));
  // In capitals, one word is an acronym ("Thanks,\nACME", "I'm AWS."): a name so written needs two.
  if (full.every((w) => w === w.toUpperCase())) minWords = Math.max(minWords, 2);
  if (full.length < minWords || !words.every((w, i) => isSkillSurname(words, i) || plausibleWord(w)) || isSkillForm(value.toLowerCase())) return null;
  if ((full.length === 1 && isWellKnownName(full[0]!.toLowerCase())) || isPlaceName(value)) return null;
  return value;
}

/** Adds the name to found if it reads as one where it stands; returns whether it does. */
function decide(cue: Cue, text: string, m: RegExpExecArray, written: string, titled: boolean, greeted: boolean, found: Set<string>, inBrackets = false): boolean {
  const end = m.index + m[0].length;
  const here = cue === 'opener' && m[0].endsWith('here');
  // Generations and degrees after the name ("Jane Doe MBA and", "John Smith Jr.") are no part of it; what follows them
  // must end it. The name ends the match, but for "... here".
  const { name, after } = here ? { name: written, after: text.slice(end, end + 40) } : withoutPostNominals(written, text.slice(end, end + 40));
  let minWords = 1;
  let ends: boolean;
  if (cue === 'prose') ends = PROSE_END.test(after);
  else if (cue === 'opener') {
    // "Sam Keller here —": what follows "here" is punctuation; a one-word name only after a greeting ("Hi, Sam here").
    ends = here ? /^[ \t]*(?:$|\n|[,!—–]|-[ \t])/u.test(after) : PROSE_END.test(after);
    minWords = greeted ? 1 : 2;
  } else {
    ends = (inBrackets ? LINE_END_IN_BRACKETS : LINE_END).test(after);
    // A label's value of one word could be a place or a company ("Contact: Berlin"); with a title it is a person.
    if (cue === 'label') {
      minWords = titled ? 1 : 2;
      if (PLACE_AFTER.test(after)) ends = false;
    }
  }
  const value = ends ? plausibleName(name, minWords) : null;
  if (value !== null && found.size < MAX_INTRODUCED) found.add(value);
  return value !== null;
}

// A name scrubbed before right after a line's first name ("Goldman Sachs – [NAME]"): that first name is an employer.
const PLACEHOLDER_NEXT = new RegExp(`^[ \\t]{0,3}(?:[,;|/(:]|[-–—])[ \\t]{0,3}(?:${HONORIFIC})?\\[NAME\\]`, 'u');
// A line under a references heading that starts with a name scrubbed before: a person's, when the text is scrubbed again.
const PLACEHOLDER_START = new RegExp(`^[ \\t]{0,8}(?:(?:[-•*·]|\\d{1,2}[.)])[ \\t]{0,3})?(?:${HONORIFIC})?\\[NAME\\]`, 'u');
const firstWordGiven = (name: string): boolean => isGivenName(name.split(/[ \t]/, 1)[0]!);

/**
 * The referees on a references line after the name it starts with (which ends at `from`), each as a label's value.
 * commaLists: a comma separates referees, as on a label's line ("References: John Doe (manager), Jane Roe (peer)").
 * Elsewhere a name needs a title, or a common given name after words of a relation, or one after a column, a dash, a
 * bracket or a comma when the line starts with no person's name (afterPerson false): after one, that is where its
 * employer stands ("Jane Roe, CTO, Charles Schwab"). inBrackets: the line is what a label's brackets hold after the
 * person it names, to the closing one ("(Contact: Jane Roe, Sam Keller)"): a name there needs a title or a common given
 * name whatever separates it, as a list there goes on with an employer or a title too ("(Contact: Jane Roe, Acme
 * Corp)", "(ref: John Smith, Goldman Sachs)"). Returns whether a name stands right after the first: then the first is an
 * employer ("Goldman Sachs – Jane Doe, CTO").
 */
function findFurtherReferees(line: string, from: number, commaLists: boolean, afterPerson: boolean, names: Set<string>, inBrackets = false): boolean {
  const rest = line.slice(from);
  let next = false;
  for (const m of rest.matchAll(FURTHER_REFEREE_RE)) {
    const listed = !inBrackets && (m[1]!.startsWith(')') || m[1] === ';' || (commaLists && m[1] === ','));
    const titled = m[2] !== '';
    const related = /\p{L}/u.test(m[1]!);
    if (!listed && !titled && !((related || !afterPerson || inBrackets) && firstWordGiven(m[3]!))) continue;
    if (decide('label', rest, m, m[3]!, titled, false, names, inBrackets || titled || related) && !/\S/.test(rest.slice(0, m.index))) next = true;
  }
  // Scrubbed again, the name after the employer is a placeholder: the employer stays (scrubbing is idempotent).
  return next || PLACEHOLDER_NEXT.test(rest);
}

/**
 * The referees after the first on a references line, each as a label's value ("..., Jane Roe (peer); Dr. Sam Keller"),
 * read from `from` but not before `read` (a line of many labels is read once). Returns where the reading ended.
 */
function findNextReferees(text: string, from: number, read: number, names: Set<string>): number {
  const start = Math.max(from, read);
  const line = text.slice(start, Math.max(start, from + REFERENCE_LINE_CHARS)).split('\n', 1)[0]!;
  findFurtherReferees(line, 0, true, true, names);
  return start + line.length;
}

/**
 * What the brackets a label opens hold after its value at `from`, to the bracket that closes them, on its line ("(ref:
 * John Smith (CTO), Jane Doe)": a referee's role in brackets inside them too).
 */
function restInBrackets(text: string, from: number): string {
  const end = Math.min(text.length, from + REFERENCE_LINE_CHARS);
  let depth = 1;
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c === '\n') return text.slice(from, i);
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && --depth === 0) return text.slice(from, i);
  }
  return text.slice(from, end);
}

/** A line that heads the next section: words of headings only ("Hobbies", "Work Experience", "EDUCATION:"). */
function isHeading(line: string): boolean {
  const words = line.trim().replace(/:$/, '').split(/[ \t&/]+/).filter((w) => w !== '');
  if (words.length === 0 || words.length > 4 || !words.every((w) => NOT_NAME_WORDS.has(w.toLowerCase()))) return false;
  // "Head of Data" under a referee's name is a title: a heading is one word, or capitalised throughout, or ends in a colon.
  return words.length === 1 || words.every((w) => /^\p{Lu}/u.test(w)) || /:[ \t]*$/.test(line);
}

// A word alone on its line ("Volunteering", "Patents:"): after a blank line, the next section's heading, as a referee's
// entry starts with a name of two words or a title, whatever heading words the lists hold.
const LONE_WORD_RE = /^[ \t]*\p{Lu}[\p{L}-]*:?[ \t]*$/u;

/**
 * Whether the name a line under a references heading starts with (m of REFERENCE_ENTRY_RE) may be a referee's: it starts
 * an entry (see findReferees), or a title or a common given name marks a person ("John Doe", "Dr. Sam Keller"; alone
 * on its line, a given name and a surname: "Grace Hopper Academy" is an employer). employer: another name follows it.
 */
function startsEntry(m: RegExpExecArray, line: string, entryStarts: boolean, employer: boolean): boolean {
  const titled = m[2] !== '';
  const given = firstWordGiven(m[3]!);
  if (employer) return titled || given;
  const goesOn = /\S/.test(line.slice(m[0].length));
  return entryStarts || m[1] !== undefined || goesOn || titled || (given && m[3]!.split(/[ \t]+/).length === 2);
}

/**
 * The referees on the lines under a references heading (which ends at `from`), each line that starts an entry read as a
 * label's value: the section's first, one after a blank or a contact line or with a bullet, one that goes on after
 * the name ("Jane Roe, CTO, Acme"), or one of a title or a common given name ("John Doe" under another's title). A line
 * of another name alone inside an entry is its employer ("Stripe Atlas"), and so is a name another follows ("Goldman
 * Sachs – Jane Doe"). Further referees on each line: findFurtherReferees. A line saying references are given on request
 * ends the section.
 */
function findReferees(text: string, from: number, names: Set<string>): void {
  let entryStarts = true;
  let blank = false;
  // Line by line, each cut short: a text of many headings is read once, as a section ends at the next heading.
  for (let at = from, n = 0; n < REFERENCE_LINES && at < text.length; n++) {
    const next = text.indexOf('\n', at + 1);
    const end = next === -1 ? text.length : next;
    const line = text.slice(at + 1, Math.min(end, at + 1 + REFERENCE_LINE_CHARS));
    if (isHeading(line) || ON_REQUEST_RE.test(line) || (blank && LONE_WORD_RE.test(line))) return;
    const m = REFERENCE_ENTRY_RE.exec(line);
    const person = m !== null ? m[2] !== '' || firstWordGiven(m[3]!) : PLACEHOLDER_START.test(line);
    const employer = findFurtherReferees(line, m?.[0].length ?? 0, false, person, names);
    if (m && startsEntry(m, line, entryStarts, employer)) decide('label', line, m, m[3]!, m[2] !== '', false, names);
    blank = !/\S/.test(line);
    entryStarts = blank || /\[(?:EMAIL|PHONE|URL)\]/.test(line);
    at = end;
  }
}

/** The text's last line with letters, placeholders aside: where a letter is signed. */
function lastLineWithLetters(text: string): string {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    if (/\p{L}/u.test(line.replace(/\[[A-Z]+\]/g, ''))) return line;
    end = start - 1;
  }
  return '';
}

/**
 * Adds to found the names the text introduces (see above), to be removed wherever they are written, as a header's name
 * is. The text is not changed here.
 */
export function findIntroducedNames(text: string, found: string[]): void {
  if (!CUE_HINT.test(text)) return;
  const names = new Set<string>();
  for (const m of text.matchAll(PROSE_RE)) decide('prose', text, m, m[1]!, false, false, names);
  for (const m of text.matchAll(OPENER_RE)) decide('opener', text, m, (m[2] ?? m[3])!, false, m[1] !== undefined, names);
  for (const m of text.matchAll(SIGNOFF_RE)) {
    // Between the sign-off and the name: a comma, a colon, a dash or a line break ("Thanks Sam Keller for" is no sign-off),
    // not a full stop ("Thanks.\nKey Accomplishments" is a heading after a sentence).
    if (/[,:—–\n-]/.test(m[1]!)) decide('signoff', text, m, m[2]!, false, false, names);
  }
  const last = lastLineWithLetters(text);
  const dash = DASH_RE.exec(last);
  if (dash) decide('dash', last, dash, dash[1]!, false, false, names);
  let read = 0;
  let readInBrackets = 0;
  for (const m of text.matchAll(LABEL_RE)) {
    const titled = m[1] !== '';
    const before = text.slice(Math.max(0, m.index - 48), m.index);
    const label = m[0].slice(0, m[0].length - m[1]!.length - m[2]!.length).trimEnd();
    const opensBracket = OPENS_BRACKET.test(before);
    if (!titled && needsGivenOrTitle(label, opensBracket) && !firstWordGiven(m[2]!)) continue;
    const inBrackets = opensBracket || (/^contact/i.test(m[0]) && OPENS_BRACKET_BEFORE_WORDS.test(before));
    decide('label', text, m, m[2]!, titled, false, names, inBrackets);
    // Further people in its brackets ("(manager: John Smith; peer: Jane Roe)"), read once where one label's brackets
    // hold another's, and on a referee or references label's line, which lists referees (not on a ref's or a reporting
    // manager's: "(ref: John Smith, Goldman Sachs; Berlin)").
    if (inBrackets && m.index >= readInBrackets) {
      const rest = restInBrackets(text, m.index + m[0].length);
      findFurtherReferees(rest, 0, false, true, names, true);
      readInBrackets = m.index + m[0].length + rest.length;
    }
    if (/^refer/i.test(m[0])) read = findNextReferees(text, m.index + m[0].length, read, names);
  }
  if (/refer/i.test(text)) for (const m of text.matchAll(REFERENCES_HEADING_RE)) findReferees(text, m.index + m[0].length, names);
  // A signature label's name and a declaration's signer (one: the nearest the end that reads as a name), two words at
  // least, as nothing else marks them a person's.
  const signers = declarationSigners(text);
  const asName = (value: string) => plausibleName(value, 2);
  const signer = signers.bare.map(asName).find((name) => name !== null) ?? null;
  for (const name of [...signers.labelled.map(asName), signer]) {
    if (name !== null && names.size < MAX_INTRODUCED) names.add(name);
  }
  found.push(...names);
}
