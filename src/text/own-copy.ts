// V8 keeps a substring of 13 characters or more (a regular expression's match, a slice) as a view into the string it
// was taken from: a cache that keeps such a word keeps the whole text alive (a resume, up to 100,000 characters, for
// each new long word). The word caches keep a copy of their own instead.

/** `word` as a string of its own, not a view into the text it came from. */
export function ownCopy(word: string): string {
  // Concatenation then a slice flattens into a new string of the word's length plus one: the text is not referenced.
  return word.length > 12 ? ` ${word}`.slice(1) : word;
}
