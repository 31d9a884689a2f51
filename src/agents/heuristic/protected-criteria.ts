// A role's sentences that ask for a protected characteristic ("recent graduates only", "young and energetic team",
// "male candidates preferred", "native English speaker", "born in the USA", "Christian values"): no score may follow
// them, so the heuristic agents read the role without them. They stay in the role as written (the recruiter's text);
// the model agents are told to ignore such requirements (src/agents/llm/prompt.ts, FAIRNESS_RULE).

// Age, sex, national origin, religion, family status, disability: the words that state such a criterion. Words with a
// second, innocent sense are left out ("race conditions", "single sign-on", "white-box", "React Native").
const PROTECTED_CRITERION = [
  // Age.
  'young(?:er)?', 'youthful', 'recent(?:ly)? graduat\\w*', 'fresh graduates?', 'digital natives?', 'age (?:limit|range|between)',
  'maximum age', '(?:under|below|over|above|not older than|no older than|aged?) \\d{2}(?![\\d%])', '\\d{2}\\s*(?:-|–|to)\\s*\\d{2} years? (?:old|of age)',
  // Sex and gender.
  'males?', 'females?', 'men', 'women', 'gentlemen', 'ladies', '(?:a |the )?(?:man|woman) (?:for|who|to)', 'gender', 'sex',
  // National origin and language as birth.
  'native (?:\\p{L}+ )?speakers?', 'mother tongue', 'born (?:in|and raised)', 'citizens? by birth', 'nationality', 'ethnic\\w*',
  // Religion.
  'christians?', 'muslims?', 'jewish', 'hindus?', 'buddhists?', 'sikhs?', 'catholics?', 'church(?:es|goers?)?', 'mosques?', 'synagogues?',
  'religio\\w*', 'god-fearing',
  // Family status, pregnancy, disability.
  'married', 'unmarried', 'spouses?', 'pregnan\\w*', 'childless', 'no (?:kids|children)', 'family planning', 'able-bodied', 'disabilit\\w*',
  'handicap\\w*',
  // The same in German, French, Spanish, Portuguese and Italian: a young team, a mother tongue, a native speaker.
  'jung(?:e[mnrs]?)?', 'jeunes?', 'j[oó]venes', 'joven', 'jove(?:m|ns)', 'giovan[ei]', 'muttersprach\\p{L}*', 'langue maternelle',
  'lengua materna', 'l[ií]ngua materna', 'madrelingua', '(?:hablantes?|falantes?) nativ[oa]s?',
].join('|');
const CRITERION = `(?<![\\p{L}\\d-])(?:${PROTECTED_CRITERION})(?![\\p{L}\\d-])`;
const CRITERION_RE = new RegExp(CRITERION, 'iu');

const fair = new WeakMap<object, string>();

// A sentence longer than this is no sentence but a run of text (a description pasted without stops): only the words
// that state the criterion go from it, not the skills around them.
const MAX_SENTENCE_CHARS = 240;
const CRITERIA_RE = new RegExp(CRITERION, 'giu');

/** The text without its sentences (or list items) that state a protected criterion. */
export function withoutProtectedCriteria(text: string): string {
  if (!CRITERION_RE.test(text)) return text;
  // Sentences end at a full stop, a semicolon or a line's end; a list item is a line.
  return text
    .split(/(?<=[.;!?])\s+|\n/)
    .flatMap((sentence) => {
      if (!CRITERION_RE.test(sentence)) return [sentence];
      return sentence.length > MAX_SENTENCE_CHARS ? [sentence.replace(CRITERIA_RE, ' ')] : [];
    })
    .join('\n');
}

/** The role's description as the heuristic agents read it: without the sentences that state a protected criterion. */
export function fairDescription(role: { description: string }): string {
  let text = fair.get(role);
  if (text === undefined) fair.set(role, (text = withoutProtectedCriteria(role.description)));
  return text;
}

/**
 * The role's title as the heuristic agents read it: without the words that state a protected criterion ("Female
 * Customer Support Agent", "Young Sales Talent"). A title is no sentence to drop whole: its other words are the role.
 */
export function fairTitle(role: { title: string }): string {
  return CRITERION_RE.test(role.title) ? role.title.replace(CRITERIA_RE, ' ').replace(/\s+/g, ' ').trim() : role.title;
}
