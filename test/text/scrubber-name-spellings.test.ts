// Addresses, sites and handles that spell the person's name, which read as prose or a product until the name is known;
// and the words, skills and companies a name shares, which must stay. The rest is in scrubber.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrub } from '../../src/text/scrubber.js';

const jane = { names: ['Jane Doe'] };

const removed: Array<[string, string, string]> = [
  // [what, input, expected], the name known as Jane Doe.
  ['the whole name before a bare at', 'Questions welcome: janedoe at acme.com anytime.', 'Questions welcome: [EMAIL] anytime.'],
  ['the whole name capitalised', 'Questions welcome: JaneDoe at acme.com anytime.', 'Questions welcome: [EMAIL] anytime.'],
  ['the whole name dotted and capitalised', 'Questions welcome: Jane.Doe at acme.com anytime.', 'Questions welcome: [EMAIL] anytime.'],
  ['the whole name hyphenated', 'Questions welcome: jane-doe at acme.com anytime.', 'Questions welcome: [EMAIL] anytime.'],
  ['the name the other way round', 'Questions welcome: doejane at acme.com or doe.jane at acme.io.', 'Questions welcome: [EMAIL] or [EMAIL].'],
  ['an initial and a whole part', 'Questions welcome: jdoe at acme.com, janed at acme.io or doej at acme.org.', 'Questions welcome: [EMAIL], [EMAIL] or [EMAIL].'],
  ['one part in lower case', 'Questions welcome: jane at acme.com anytime.', 'Questions welcome: [EMAIL] anytime.'],
  ['a capitalised name with a spelled dot', 'Questions: JaneDoe at Acme dot com', 'Questions: [EMAIL]'],
  ['a site of the name the other way round', 'Projects: doej.io and Doe-Jane.app, demos on blog.janedoe.com', 'Projects: [URL] and [URL], demos on [URL]'],
  ['a GitHub handle of the name inside a line', 'GitHub: janedoe | Email: jane@x.io', 'GitHub: [URL] | Email: [EMAIL]'],
  // A job title before a domain makes it an employer's, but not one that holds the person's name.
  ['a site holding a part of the name after a job title', 'Freelance developer at janecodes.dev; Janecodes (janecodes.dev)', 'Freelance developer at [URL]; Janecodes ([URL])'],
];

for (const [what, input, expected] of removed) {
  test(`a spelling of the known name is removed: ${what}`, () => {
    assert.equal(scrub(input, jane), expected);
  });
}

test('a name shown by the text spells its addresses, sites and handles too', () => {
  const resume = 'Name: Jane Doe\nQuestions welcome: janedoe at acme.com\nGitHub: jane-doe | Phone: 555-123-4567\nCase studies on JaneDoe.io and doej.app';
  assert.equal(scrub(resume), 'Name: [NAME]\nQuestions welcome: [EMAIL]\nGitHub: [URL] | Phone: [PHONE]\nCase studies on [URL] and [URL]');
  const header = 'Jane Doe\nAustin, TX | [PHONE]\n\nSummary\nQuestions welcome: JaneDoe at acme.com.';
  assert.equal(scrub(header), '[NAME]\nAustin, TX | [PHONE]\n\nSummary\nQuestions welcome: [EMAIL].');
});

test('a surname that is a particle is part of the whole name and of its spellings', () => {
  const text = 'Anh Le led the team. Happy to chat: Anh.Le at shopco.io or anhle.dev. Le Monde covered it.';
  assert.equal(scrub(text, { names: ['Anh Le'] }), '[NAME] led the team. Happy to chat: [EMAIL] or [URL]. Le Monde covered it.');
  assert.equal(scrub('Ludwig van Beethoven wrote it', { names: ['Ludwig van Beethoven'] }), '[NAME] wrote it');
});

test('with no name known, a plain word before a bare at stays prose', () => {
  assert.equal(scrub('Questions welcome: janedoe at acme.com anytime.'), 'Questions welcome: janedoe at acme.com anytime.');
});

const kept: Array<[string, string[], string, string]> = [
  // [what, names, input, expected]
  ['a name part that is a language, alone and as a domain', ['Mark Go'], 'Built services in Go (see go.dev); Mark Go led it.', 'Built services in Go (see go.dev); [NAME] led it.'],
  ['an initial and a two-letter part spell no name', ['Mark Go'], 'Used mgo at acme.com for MongoDB access.', 'Used mgo at acme.com for MongoDB access.'],
  ['a common-word first name is no address alone', ['Mark Go'], 'Hit the mark at acme.com twice; markgo at acme.com', 'Hit the mark at acme.com twice; [EMAIL]'],
  ['a name part that is a skill and its site', ['Taylor Swift'], 'Wrote iOS apps in Swift (swift.org).', 'Wrote iOS apps in Swift (swift.org).'],
  ['a surname that is a well-known company', ['Jane Apple'], 'Worked at apple.com; questions: jane at apple.com', 'Worked at apple.com; questions: [EMAIL]'],
  ['a name part that is a verb before a bare at', ['Rose Tan'], 'She quickly rose at acme.com to team lead.', 'She quickly rose at acme.com to team lead.'],
  ['a capitalised first name before a bare at is a person at a company', ['Jane Doe'], 'Mentored by Jane at Acme.com.', 'Mentored by [NAME] at Acme.com.'],
  ['employer and product domains beside the name', ['Jane Doe'], 'Engineer at acme.com; deployed on fly.io; used socket.io', 'Engineer at acme.com; deployed on fly.io; used socket.io'],
];

for (const [what, names, input, expected] of kept) {
  test(`a look-alike of a known name stays: ${what}`, () => {
    assert.equal(scrub(input, { names }), expected);
  });
}

test('scrubbing the spellings is idempotent', () => {
  for (const [, input] of removed) {
    const once = scrub(input, jane);
    assert.equal(scrub(once, jane), once, input);
  }
});
