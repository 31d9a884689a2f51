// Places as the logistics rule reads them (career-rules.ts): a role's location against a candidate's.
import { tokenize } from '../../text/tokenize.js';
import { type Region, regionTable, sameRegionReading } from './regions.js';

// Accents off Latin letters, before lower-casing ("İ" is "I" with a dot, whose lower case is "i" and a combining dot,
// which no token holds): "Zürich" is "Zurich", "İstanbul" is "Istanbul", "São Paulo" is "Sao Paulo". Here only, not
// in tokenize(): the local embedder hashes tokens, and stored vectors keep their accents.
const foldLatin = (s: string): string =>
  /[^\p{ASCII}]/u.test(s) ? s.normalize('NFD').replace(/(?<=\p{sc=Latin})\p{M}+/gu, '').normalize('NFC') : s;

/** The tokens of a place, however its accents are written. */
export const placeTokens = (text: string): string[] => tokenize(foldLatin(text));
/**
 * A place in its comma-separated parts, each as its words: "San Diego, CA" is [["san", "diego"], ["ca"]]. A short code
 * the tokenizer drops as a common word ("OR", "ME", "IN": Oregon, Maine, Indiana) is kept as it is.
 */
export const placeParts = (text: string): string[][] =>
  text
    .split(/[,;/|()]+/)
    .map((raw) => {
      const words = placeTokens(raw);
      const code = raw.trim().toLowerCase();
      return words.length > 0 ? words : /^\p{L}{2,3}$/u.test(code) ? [code] : [];
    })
    .filter((part) => part.length > 0);

const REGIONS = regionTable((name) => placeTokens(name).join(' '));
const isCode = (part: readonly string[]): boolean => part.length === 1 && part[0]!.length === 2;

/** The regions a part can name ("tx": Texas; "ca": Canada or California), or null for a part the table does not know. */
function regionsOf(part: readonly string[]): readonly Region[] | null {
  return (isCode(part) ? REGIONS.byCode.get(part[0]!) : REGIONS.byName.get(part.join(' '))) ?? null;
}

/**
 * Whether a candidate's place is the role's: a part of it begins with the role's first part ("Berlin" in "Berlin,
 * DE" and "Berlin Mitte"; "Germany" in "Munich, Germany"). A shared word elsewhere is no same place: "Munich, DE" is
 * not "Berlin, DE", nor "San Diego, CA" "San Francisco, CA", nor "New London, CT" "London, UK".
 */
export function samePlace(role: readonly string[][], here: readonly string[][]): boolean {
  const first = role[0];
  if (first === undefined) return false;
  const at = here.findIndex((part) => first.every((t, i) => part[i] === t));
  return at >= 0 && sameRegion(role.slice(1), here.slice(at + 1));
}

/**
 * Whether the parts after a shared city can be the same region. Parts the region table knows are compared by what they
 * name, however written: "Paris, FR" is not "Paris, Texas", nor "London, UK" "London, ON"; "Berlin, DE" is "Berlin,
 * Germany", "Austin, TX" "Austin, USA". One such pair that cannot agree decides. Other parts ("Bavaria", "Essex")
 * are compared with their own kind only (codes with codes, names with names) and tell apart only when none agrees; a
 * known part against an unknown one tells nothing ("Munich, Bavaria" may be "Munich, Germany").
 */
function sameRegion(role: readonly string[][], here: readonly string[][]): boolean {
  let agreed = false;
  let differed = false;
  for (const a of role) {
    for (const b of here) {
      const ra = regionsOf(a);
      const rb = regionsOf(b);
      if (ra !== null && rb !== null) {
        if (!sameRegionReading(ra, rb)) return false;
        agreed = true;
      } else if (ra === null && rb === null && isCode(a) === isCode(b)) {
        if (a.join(' ') === b.join(' ')) agreed = true;
        else differed = true;
      }
    }
  }
  return agreed || !differed;
}
