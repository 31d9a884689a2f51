// Places as the logistics rule reads them (career-rules.ts): a role's location against a candidate's.
import { tokenize } from '../../text/tokenize.js';
import { type Region, regionTable } from './regions.js';

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

/** What a place's region parts name: its countries, the states in them, and the parts the table does not place. */
interface Resolved {
  /** The countries the place can be in (null: no part the table knows, or none that agree). */
  countries: Set<string> | null;
  /** Per country, the states or provinces the place names in it. */
  states: Map<string, Set<string>>;
  /** Parts the table does not know, or whose readings fit no country the place names ("PR" in "Curitiba, PR, Brazil"). */
  unknown: string[][];
}

/**
 * An address's parts read together, the most general (the last) first: a country, then what fits in it. A code read as
 * another country than the address names is a subdivision the table does not know ("BE" in "Bern, BE, Switzerland",
 * "MI" in "Milano (MI), Italia"), as is a name of another country ("Macedonia" in "Thessaloniki, Macedonia, Greece").
 */
function resolve(parts: readonly string[][]): Resolved {
  let countries: Set<string> | null = null;
  const states = new Map<string, Set<string>>();
  const unknown: string[][] = [];
  for (const part of [...parts].reverse()) {
    const readings = regionsOf(part);
    const fitting = readings?.filter((r) => countries === null || countries.has(r.country)) ?? [];
    if (fitting.length === 0) {
      unknown.push(part);
      continue;
    }
    countries = new Set(fitting.map((r) => r.country));
    for (const r of fitting) if (r.state !== undefined) states.set(r.country, (states.get(r.country) ?? new Set()).add(r.state));
  }
  return { countries, states, unknown };
}

/**
 * Whether two resolved places can be one region: a country both can be in, where not both name a state, or they name
 * the same one. `within`: the role's region must hold the candidate's place (a role in Texas takes "Austin, TX", not
 * "Austin, USA").
 */
function sameCountryAndState(role: Resolved, here: Resolved, within = false): boolean {
  if (!role.countries || !here.countries) return false;
  return [...role.countries].some((country) => {
    if (!here.countries!.has(country)) return false;
    const a = role.states.get(country);
    const b = here.states.get(country);
    if (!a) return true;
    if (!b) return !within;
    return [...a].some((s) => b.has(s));
  });
}

/**
 * Whether a candidate's place is the role's: a part of it begins with the role's first part ("Berlin" in "Berlin,
 * DE" and "Berlin Mitte"; "Germany" in "Munich, Germany"), in the same region. A shared word elsewhere is no same
 * place: "Munich, DE" is not "Berlin, DE", nor "San Diego, CA" "San Francisco, CA", nor "New London, CT" "London, UK".
 * A role placed in a region the table knows ("Germany", "UK", "Texas") takes a candidate the table places in it
 * however written ("Munich, DE", "London, United Kingdom", "Austin, TX").
 */
export function samePlace(role: readonly string[][], here: readonly string[][]): boolean {
  const first = role[0];
  if (first === undefined) return false;
  const at = here.findIndex((part) => first.every((t, i) => part[i] === t));
  if (at >= 0) return sameRegion(role.slice(1), here.slice(at + 1));
  return regionsOf(first) !== null && sameCountryAndState(resolve(role), resolve(here), true);
}

/**
 * Whether the parts after a shared city can be the same region. Each address is read on its own first (resolve), then
 * compared by what it names, however written: "Paris, FR" is not "Paris, Texas", nor "London, UK" "London, ON", nor
 * "Portland, OR" "Portland, ME"; "Berlin, DE" is "Berlin, Germany", "Austin, TX" "Austin, USA". When both name a
 * country, that decides, and parts the table does not know are subdivisions it cannot compare ("Munich, Bavaria,
 * Germany" is "Munich, Germany"). Otherwise those parts are compared with their own kind only (codes with codes, names
 * with names) and tell apart only when none agrees ("Chelmsford, Essex" is not "Chelmsford, Kent"; "Munich, Bavaria"
 * may be "Munich, Germany").
 */
function sameRegion(role: readonly string[][], here: readonly string[][]): boolean {
  const a = resolve(role);
  const b = resolve(here);
  if (a.countries && b.countries) return sameCountryAndState(a, b);
  let agreed = false;
  let differed = false;
  for (const x of a.unknown) {
    for (const y of b.unknown) {
      if (isCode(x) !== isCode(y)) continue;
      if (x.join(' ') === y.join(' ')) agreed = true;
      else differed = true;
    }
  }
  return agreed || !differed;
}
