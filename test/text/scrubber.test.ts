// The scrubber removes what identifies a person and leaves the evidence a recruiter needs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsPii, scrub } from '../../src/text/scrubber.js';

const removed: Array<[string, string, string]> = [
  // [what, input, expected]
  ['plain email', 'Email: john.doe@email.com', 'Email: [EMAIL]'],
  ['email with spaces round @', 'mail me: ada @ example.org today', 'mail me: [EMAIL] today'],
  ['bracketed obfuscation', 'ada [at] example [dot] com', '[EMAIL]'],
  ['parenthesised at', 'ada.l(at)example.co.uk', '[EMAIL]'],
  ['spelled out', 'reach me at john dot doe at gmail dot com please', 'reach me at [EMAIL] please'],
  ['spelled at, mail host', 'write to ada at gmail.com', 'write to [EMAIL]'],
  ['UK phone', 'Call +44 20 7946 0000.', 'Call [PHONE].'],
  ['US phone with parens', 'Phone: (555) 123-4567', 'Phone: [PHONE]'],
  ['dotted phone', 'tel 555.123.4567', 'tel [PHONE]'],
  ['dashed international', '+1-202-555-0143', '[PHONE]'],
  ['00 prefix', 'Mobile 0049 30 1234567', 'Mobile [PHONE]'],
  ['Indian mobile', '+91 98765 43210', '[PHONE]'],
  ['country code and area code', '+1 (234) 567-8901', '[PHONE]'],
  ['bare ten digits', 'Phone Number - 9876543210', 'Phone Number - [PHONE]'],
  ['phone after a year range', 'Acme (2016-2018) 555-123-4567', 'Acme (2016-2018) [PHONE]'],
  ['https url', 'See https://example.com/a?b=1.', 'See [URL].'],
  ['www url', 'Site: www.ada.dev, now', 'Site: [URL], now'],
  ['linkedin without scheme', 'linkedin.com/in/johndoe', '[URL]'],
  ['github profile', 'code at github.com/ada-l and more', 'code at [URL] and more'],
  ['labelled handle', 'GitHub: adal', 'GitHub: [URL]'],
  ['street with letter suffix', 'I live at 221B Baker Street, London.', 'I live at [ADDRESS].'],
  ['parkway with city, state, zip', '1600 Amphitheatre Parkway, Mountain View, CA 94043', '[ADDRESS]'],
  ['abbreviation and apartment', 'Home: 123 Main St., Apt 4', 'Home: [ADDRESS]'],
  ['UK postcode', 'London SW1A 1AA', 'London [ADDRESS]'],
  ['ZIP after a state', 'Springfield, IL 62704', 'Springfield, IL [ADDRESS]'],
  ['address line', 'Address: 456 Main St, Anytown, USA', 'Address: [ADDRESS]'],
  ['name line', 'Name: John Smith', 'Name: [NAME]'],
  ['name line with a dash', 'Name - Jane Smith', 'Name - [NAME]'],
  ['name line with more columns', 'Name: Sarah Johnson   Experience: 2 years', 'Name: [NAME]   Experience: 2 years'],
  ['header name', 'Ada Lovelace\nSoftware Engineer', '[NAME]\nSoftware Engineer'],
  ['a contact line from the dataset', 'Providence, RI | (123) 456-7890 | johndoe@email.com', 'Providence, RI | [PHONE] | [EMAIL]'],
  ['upper-case header after a heading', 'RESUME\nJANE SMITH | jane@x.com', 'RESUME\n[NAME] | [EMAIL]'],
];

for (const [what, input, expected] of removed) {
  test(`removes: ${what}`, () => {
    assert.equal(scrub(input), expected);
  });
}

const kept: Array<[string, string]> = [
  ['year ranges', 'Acme 2015-2019, Beta (2016 - 2018), Gamma 2014 – 2018'],
  ['durations', 'Require 3 to 7 years of hands-on experience'],
  ['versions', 'Python 3.10.4, iOS 16.2, version 1.2.3, v10.15.7'],
  ['percentages and money', 'Grew revenue 45% to $1,200,000; Salary: 300,000.00 - 800,000.00 per year; Salary : 20000-40000'],
  ['dates', 'Joined 2019-05-12, left 12.05.2019, 05/12/2020'],
  ['IP addresses', 'Configured 192.168.1.1 and 10.0.0.254'],
  ['skills that look like domains', 'Built with Node.js and ASP.NET/MVC, deployed to Booking.com'],
  ['employer after a bare at', 'Engineer at Hotels.com, worked at Google'],
  ['job-title header', 'Software Engineer\nSummary: builds things'],
  ['section header', 'Professional Summary\nExperienced developer'],
  ['skill headline', 'Golang Ninja\nBuilds services'],
  ['street-like phrases', 'Led 5 engineers in 3 Core Data projects'],
];

for (const [what, input] of kept) {
  test(`keeps: ${what}`, () => {
    assert.equal(scrub(input), input);
  });
}

test('the candidate name goes everywhere: parts, any case, possessives, inside sentences', () => {
  const text = "Ada Lovelace led the team. Ada's design won; LOVELACE wrote it. Adam stayed.";
  assert.equal(scrub(text, { names: ['Ada Lovelace'] }), "[NAME] led the team. [NAME]'s design won; [NAME] wrote it. Adam stayed.");
});

test('names found in a Name: line are removed from the rest of the text too', () => {
  assert.equal(scrub('Name: Priya Raman\nPriya shipped the app.'), 'Name: [NAME]\n[NAME] shipped the app.');
});

test('a name that is also a word is only removed when capitalised', () => {
  assert.equal(scrub('Will Smith will lead. Will agreed.', { names: ['Will Smith'] }), '[NAME] will lead. [NAME] agreed.');
});

test('one-letter name parts are ignored', () => {
  assert.equal(scrub('J Smith used a J tool', { names: ['J Smith'] }), 'J [NAME] used a J tool');
});

test('placeholders are never re-scrubbed: scrubbing is idempotent', () => {
  const inputs = [
    ...removed.map(([, input]) => input),
    ...kept.map(([, input]) => input),
    'www.example.com\nJohn Smith\nPhone: +1 (234) 567-8901, john@x.io',
    'Name: [NAME]\nEmail: [EMAIL]',
  ];
  for (const input of inputs) {
    const once = scrub(input, { names: ['John Smith'] });
    assert.equal(scrub(once, { names: ['John Smith'] }), once, input);
  }
});

test('containsPii tells raw from scrubbed text', () => {
  const raw = 'Contact: ada@example.com, +44 20 7946 0000';
  assert.equal(containsPii(raw), true);
  assert.equal(containsPii(scrub(raw)), false);
  assert.equal(containsPii('Ada wrote Python', { names: ['Ada'] }), true);
  assert.equal(containsPii('Wrote Python since 2015-2019'), false);
});

test('adversarial 100 KB inputs scrub without catastrophic backtracking: well under three seconds of CPU each', () => {
  const size = 100_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const inputs = [
    fill('a'), fill('1 '), fill('(1'), fill('1-'), fill('a.'), fill('a@'), fill('a at '), fill('a dot '), fill('a [at] '),
    fill('5551234567 '), fill('(555) 123-4567 '), fill('2019-2020 '), fill('1 Ab '), fill('Ab Cd\n'), fill('Name: Ann Lee, '),
    `Name:${fill(' ')}x`, `http://${fill('a')}`, fill('linkedin.com/'), `${fill('a.')}@`, `${fill('a_')} at gmail dot com`,
  ];
  for (const input of inputs) {
    // CPU time, so that a loaded machine descheduling the test does not count; backtracking would take minutes.
    const started = process.cpuUsage();
    scrub(input, { names: ['Ann Lee'] });
    const { user, system } = process.cpuUsage(started);
    const ms = (user + system) / 1000;
    assert.ok(ms < 3000, `${JSON.stringify(input.slice(0, 12))}… took ${ms.toFixed(0)} ms of CPU`);
  }
});
