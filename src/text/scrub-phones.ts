// Phone numbers: digit runs are matched broadly and decided in code (a phone, or a year range, a date, an amount?).
// Part of the scrubber (scrubber.ts); every pattern is linear, as there.
import { replaceDecided } from './replace-decided.js';

// "/" joins a German area code to its number ("0171/1234567", "030 / 12345678") or two phones ("555-123-4567 /
// 555-987-6543"); decidePhones tells which. A "+" right after a slash starts the second phone ("…4567/+1 555…").
const PHONE_CANDIDATE_RE = /(?:(?<=\/)\+|(?<![\w+./,-])\+?)\(?\d[\d ().–/-]*\d\)?/g;
// A label starts a word ("graph 1200-1500" and "Hotel 1200-1500" have none); a one-letter one is a capital before a
// colon, as contact lines write it ("M: 1200-3400", "T: 020 7946 0958").
const PHONE_LABEL_RE =
  /(?:(?<![a-z])(?:(?:tele|cell|mobile|hand|home|work|office)[ \t-]?phone|phone|tel|telephone|tél|téléphone|telefon|mobile|mobil|handy|portable|mob|cell|cel|celular|móvil|movil|tlf|landline|fax|contact|whatsapp|ph|hp)|電話|携帯)\.?(?:[ \t]*(?:no|number|nr|#))?\.?[ \t]*[:\-–—]?[ \t]*$/iu;
const LETTER_LABEL_RE = /(?<![\p{L}\d])[MTPCHW][ \t]?:[ \t]*$/u;
const isPhoneLabel = (before: string) => PHONE_LABEL_RE.test(before) || LETTER_LABEL_RE.test(before);
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
  if (PHONE_BEFORE.test(lead) || isPhoneLabel(lead.slice(-24))) return false;
  return numberValue(lowText) < numberValue(high[1]!);
}

/** The digits of the run of groups next to a slash, up to `enough`: groups joined by anything but another slash. */
function runDigits(g: { start: number; end: number }[], from: number, step: 1 | -1, sep: (k: number) => string, enough: number): number {
  let digits = 0;
  for (let k = from; k >= 0 && k < g.length && digits < enough; k += step) {
    digits += g[k]!.end - g[k]!.start;
    const next = step === 1 ? k + 1 : k;
    if (next <= 0 || next >= g.length || sep(next).includes('/')) break;
  }
  return digits;
}

/** Whether the slash before group k separates two phones rather than joining a date, a code or an area code. */
function isSlashBreak(separator: string, g: { start: number; end: number }[], k: number, sep: (k: number) => string): boolean {
  if (!separator.includes('/')) return false;
  if (separator !== '/') return true;
  return runDigits(g, k - 1, -1, sep, 7) >= 7 && runDigits(g, k, 1, sep, 7) >= 7;
}

// An ASCII hyphen between two numbers of a phone's length: "120000-150000" (a salary), "0900-1700" (office hours),
// "1200-1500 ms". 4-4, 5-5 and 3-4 phones exist ("9123-4567", "98765-43210", "555-1234"), so the shape alone says
// nothing: only a sign of a range counts, and without one the number stays a phone (a leaked phone is worse than an
// over-scrubbed range). Years ("2015-2019") are told apart in phoneScore.
const HYPHEN_PAIR = /^(\d+) ?- ?(\d+)$/;
// A money word a little further back than MONEY_RE reaches, with no sentence or column break after it: "Salary
// expectation (annual): 123456-145678".
const RANGE_MONEY_BEFORE = /\b(?:salary|ctc|pay|compensation|stipend|budget|package|revenue)\b[^\n\d.;|!?[]{0,32}$/i;
const RANGE_UNIT_AFTER = /^[ \t]?(?:[$€£¥₹%]|(?:k|usd|eur|gbp|inr|cad|aud|sgd|chf|jpy|lpa|per|p\.?a|annually|yearly|monthly|hrs?|hours|ms|users|customers|employees|people|requests|rps|qps)(?![\p{L}\d]))/iu;
// Words that announce a phone: after one, nothing reads as a range ("reach me at 1200-1500", "Call 1234-5678 hrs").
const CONTACT_WORD = /\b(?:call|reach|contact|text|ring|dial|phone|telephone|cellphone|tel|mobile|cell|landline|fax|whatsapp|sms)\b/i;
// The phones a contact word announces are the next number and those listed after it ("call 1200-3400 or 1300-4500");
// one after other words and a number or a placeholder is not, and a placeholder is no contact word ("Tel: [PHONE]
// between 0900-1700", what a second scrub reads, keeps its hours as the first did). A verb may be followed by any
// words ("Call the front desk at 1200-3400"); a noun only by what a label holds ("Mobile (preferred): ", "phone number
// is "), as "mobile apps to 1200-1500 users" and "text models on" are prose.
const LISTED = '(?:(?:\\d[\\d ().+\\-]{0,20}\\d|\\[PHONE\\])[ \\t]*(?:[,;/]|or|and)[ \\t]*)*$';
// A contact verb used as a noun or an adjective announces no phone: "call volumes of 1200-1500", "a contact center
// with 1200-1500 agents", "a ring buffer of 1200-1500 entries", "a reach of 1200-1500".
const NOUN_READING =
  '[ \\t]+(?:volumes?|cent(?:er|re)s?|rates?|quality|logs?|flows?|routing|handling|times?|durations?|queues?|stack|graphs?|buffers?|lists?|forms?|recordings?|records?|metrics|data|tracking|analytics|deflection|resolution|abandonment|management|of)\\b';
const CONTACT_VERB_BEFORE = new RegExp(`(?<!\\[)\\b(?:call|reach|contact|ring|dial)\\b(?!${NOUN_READING})[^\\d[]*${LISTED}`, 'i');
const CONTACT_NOUN_BEFORE = new RegExp(
  `(?<!\\[)\\b(?:text|phone|telephone|cellphone|tel|mobile|cell|landline|fax|whatsapp|sms)\\b(?:[ \\t]*(?:[:#.,/\\-–—]|(?:me|us|on|at|via|is|number|no|nr)\\b|\\([^()\\d[\\]\\n]{0,20}\\)))*[ \\t]*${LISTED}`,
  'i',
);
const isContactWordBefore = (before: string) => CONTACT_VERB_BEFORE.test(before) || CONTACT_NOUN_BEFORE.test(before);
// Further back in the same sentence, with no other number between: only a request to call or a possessive reads so
// ("Please call me any time after six on 1200-3400", "my mobile, for recruiters only, is 1200-3400"); "mobile" or
// "text" alone is as often prose ("text classification models serving 1200-1500 ...").
const FAR_CONTACT_BEFORE =
  /(?:\b(?:call|reach|contact|text|ring|dial|whatsapp|message|sms)[ \t]+(?:me|us)\b|\b(?:my|our)[ \t]+(?:(?:tele|cell|mobile|home|work|office)[ \t-]?)?(?:phone|mobile|cell|number|landline)\b)[^\d\n.;|!?[]{0,60}$/i;
// A phone word right after the number: "1200-3400 (mobile)", "1200-3400 [h]", "1200-3400, cell". Unbracketed, only at
// the end of a clause: "1200-1500 phone calls" is a count.
const CONTACT_AFTER =
  /^[ \t]*(?:[([][ \t]*(?:(?:tele|cell|mobile|home|work|office)[ \t-]?phone|phone|tel|mobile|mob|cell|landline|fax|whatsapp|home|work|office|[mhwco])\.?[ \t]*[)\]]|[,–—-]?[ \t]*(?:mobile|cell|cellphone|telephone|landline|fax|whatsapp)(?=[ \t]*(?:$|[\n|,;.)])))/i;
// An hours word, and the words after it: "Office hours: 0900-1700", but "available on mobile 1200-1700" is a phone.
const HOURS_BEFORE = /\b(?:hours|hrs|timings?|shifts?|available|availability)\b([^\n\d[]{0,16})$/i;
const isClockTime = (n: string) => n.length === 4 && Number(n.slice(0, 2)) <= 24 && Number(n.slice(2)) < 60;
// Round numbers ("120000", "0900") end in two zeros; a phone's groups both do one time in ten thousand.
const isRound = (n: string) => n.length >= 3 && n.endsWith('00');
// A column of a contact line that holds another contact detail: "Jane Doe | 1200-3400 | [EMAIL]".
const COLUMN_START = /(?:^|[\n|•·●▪])[ \t]*$/;
const COLUMN_END = /^[ \t]*(?:[\n|•·●▪]|$)/;
const OTHER_CONTACT = /\[(?:EMAIL|URL|ADDRESS)\]|@/;

/** Whether text[from, to) is a column of a contact line; only a line's neighbourhood is read, as a long line is no such line. */
function isContactColumn(text: string, from: number, to: number): boolean {
  const windowStart = Math.max(0, from - 240);
  const lead = text.slice(windowStart, from);
  const tail = text.slice(to, to + 240);
  const nl = lead.lastIndexOf('\n');
  if (nl === -1 && windowStart > 0) return false;
  const end = tail.indexOf('\n');
  if (end === -1 && to + 240 < text.length) return false;
  const pre = lead.slice(nl + 1);
  const post = end === -1 ? tail : tail.slice(0, end);
  return COLUMN_START.test(pre) && COLUMN_END.test(post) && OTHER_CONTACT.test(pre + post);
}

/** Whether text[from, to), two digit groups joined by an ASCII hyphen, reads as a range rather than a phone. */
function isHyphenRange(text: string, from: number, to: number): boolean {
  const pair = HYPHEN_PAIR.exec(text.slice(from, to));
  if (!pair) return false;
  const [, low = '', high = ''] = pair;
  if (Number(low) >= Number(high)) return false;
  const before = text.slice(Math.max(0, from - 80), from);
  const after = text.slice(to, to + 24);
  const clock = isClockTime(low) && isClockTime(high);
  // Clock times after an hours word are hours, after a contact word too ("contact hours 0900-1700"), unless a contact
  // word follows the hours word.
  const hours = clock ? HOURS_BEFORE.exec(before.slice(-48)) : null;
  if (hours && !CONTACT_WORD.test(hours[1]!)) return true;
  if (isContactWordBefore(before.slice(-24)) || CONTACT_AFTER.test(after) || isContactColumn(text, from, to)) return false;
  if (RANGE_MONEY_BEFORE.test(before.slice(-48)) || RANGE_UNIT_AFTER.test(after.slice(0, 12))) return true;
  if (FAR_CONTACT_BEFORE.test(before)) return false;
  // Two round numbers in order and of about one size: "120000-150000", "80000-120000", "0900-1700", "100-1000". A
  // leading zero is a trunk prefix unless both are clock times.
  const sized = high.length - low.length <= 1 && Number(high) <= Number(low) * 10;
  return isRound(low) && isRound(high) && sized && (!low.startsWith('0') || clock);
}

export function scrubPhones(text: string, ascii: boolean): string {
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
  const labelled = isPhoneLabel(before);
  // A comma continues an amount only when digits follow it ("1,200"); "555-123-4567, or" ends a phone.
  const money = MONEY_RE.test(before) || /^(?:%|,\d)/.test(text.slice(m.index + raw.length, m.index + raw.length + 2));
  // Hyphen- or dot-joined groups ("2015-2019") are one token: a phone never starts or ends inside one.
  // A "/" joins too ("05/12/2020", "08/2019"): only SLASH_PHONE_SHAPE accepts a span across one. Unless it is a
  // break between two phones: spaced ("555-123-4567 / 555-987-6543"; "030 / 12345678" is then an area code and a
  // number because that span scores higher), or tight between two runs of phone length ("555-123-4567/555-987-6543").
  const sep = (k: number) => raw.slice(g[k - 1]!.end, g[k]!.start);
  const slashBreak = (k: number) => k > 0 && k < g.length && isSlashBreak(sep(k), g, k, sep);
  const tight = (k: number) => k > 0 && k < g.length && /^(?:[.-]| ?\/ ?)$/.test(sep(k)) && !slashBreak(k);
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
      // A label names every phone of a list it heads: "Phone: 1234567 / 7654321". Under a label no range is read.
      const labelledHere = labelled && (i === 0 || slashBreak(i));
      if (!labelledHere && j === i + 1 && isHyphenRange(text, m.index + start, m.index + end)) continue;
      const score = phoneScore(raw.slice(start, end), groups, labelledHere);
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

// Between a known phone's digits: spaces, brackets, slashes, and any dash or dot (ASCII or not).
export const KNOWN_PHONE_SEPARATORS = ' .()/\\-\\u00B7\\u2010-\\u2015\\u2022\\u2027\\u2212\\u2219\\u22C5\\u2E3A\\u2E3B\\u30FB\\u30FC';
