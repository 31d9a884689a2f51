// Contact details and the prose that looks like them: each case here was once scrubbed wrongly one way or the other.
// The rest of the scrubber's cases are in scrubber.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrub } from '../../src/text/scrubber.js';

const removed: Array<[string, string, string]> = [
  // [what, input, expected]
  // A spelled-out "at" is an address when what stands before it is an identifier, not a word of prose.
  ['a dotted local part before a bare at', 'jane.doe at acme.com', '[EMAIL]'],
  ['dashed at', 'jane.doe -at- acme.com', '[EMAIL]'],
  ['underscored at', 'jane_doe _at_ acme.com', '[EMAIL]'],
  ['parenthesised at and dot, no mail host', 'jane.doe (at) acme (dot) com', '[EMAIL]'],
  ['bracketed at and dot, no mail host', 'jane.doe [at] acme [dot] com', '[EMAIL]'],
  ['spelled dots and at, no mail host', 'jane dot doe at acme dot com', '[EMAIL]'],
  ['dashed and underscored dots', 'jane.doe -at- acme -dot- com; jane_doe _at_ acme _dot_ co _dot_ uk', '[EMAIL]; [EMAIL]'],
  ['an underscore, a capital or digits in the local part', 'Write to j_smith at mail.acme.com, Jane_Doe at Acme.io or jdoe85 at acme.org.', 'Write to [EMAIL], [EMAIL] or [EMAIL].'],
  ['a bare at after "reach me at", with a country domain', 'Reach me at jane.doe at acme.co.uk.', 'Reach me at [EMAIL].'],
  ['a plain word before a bare at, after an email label', 'Email: janedoe at acme.com | E-mail address - jdoe at acme.io', 'Email: [EMAIL] | E-mail address - [EMAIL]'],
  ['a lower-case word before a bare at, a column of a contact line', 'Providence, RI | [PHONE] | johndoe at acme.com\njdoe at acme.io • Berlin', 'Providence, RI | [PHONE] | [EMAIL]\n[EMAIL] • Berlin'],
  ['a lower-case word before a bare at, after a contact label', 'Contact: janedoe at acme.com | Contact Information: jdoe at acme.io', 'Contact: [EMAIL] | Contact Information: [EMAIL]'],
  // Two phones joined by a slash were one run of digits too long for a phone, so neither was replaced.
  ['two dashed phones joined by a spaced slash', 'Phone: 555-123-4567 / 555-987-6543', 'Phone: [PHONE] / [PHONE]'],
  ['two dotted phones joined by a spaced slash', '555.123.4567 / 555.987.6543', '[PHONE] / [PHONE]'],
  ['two spaced phones joined by a spaced slash', '555 123 4567 / 555 987 6543', '[PHONE] / [PHONE]'],
  ['two international phones joined by a spaced slash', '+1 555 123 4567 / +1 555 987 6543', '[PHONE] / [PHONE]'],
  ['two phones joined by a tight slash', '555-123-4567/555-987-6543', '[PHONE]/[PHONE]'],
  ['a country code after a tight slash', '+1 555 123 4567/+1 555 987 6543 and +1 555 123 4567 /+1 555 987 6543', '[PHONE]/[PHONE] and [PHONE] /[PHONE]'],
  ['ten bare digits twice', '9876543210 / 9123456789', '[PHONE] / [PHONE]'],
  ['a dashed country code, then bare digits', '+91-9876543210 / 9123456789', '[PHONE] / [PHONE]'],
  ['German slash phones joined by a spaced slash', '0171/1234567 / 0171/7654321', '[PHONE] / [PHONE]'],
  ['French pairs joined by a spaced slash', '06 12 34 56 78 / 06 98 76 54 32', '[PHONE] / [PHONE]'],
  ['local numbers joined by a spaced slash', '555-1234 / 555-9876', '[PHONE] / [PHONE]'],
  ['a label reaches every phone of its slash-joined list', 'Phone: 1234567 / 7654321', 'Phone: [PHONE] / [PHONE]'],
  ['a year, a slash, then a phone', 'Since 2016 / 555-123-4567', 'Since 2016 / [PHONE]'],
  ['a German area code with a spaced slash stays one phone', 'Tel: 0171 / 123 45 67 or 030 / 1234 5678', 'Tel: [PHONE] or [PHONE]'],
  // Ranges are read from context or roundness; numbers of a phone's shape without either stay phones.
  ['4-4, 5-5 and 3-4 phones with no sign of a range', 'Call 9123-4567, 98765-43210, 91234-56789 or 555-1234', 'Call [PHONE], [PHONE], [PHONE] or [PHONE]'],
  ['a phone with one round group', 'Mobile 9123-4500; 555-1200; 1200-4567', 'Mobile [PHONE]; [PHONE]; [PHONE]'],
  ['round numbers after a phone label', 'Tel: 1200-1500', 'Tel: [PHONE]'],
  ['clock-like groups without an hours word', 'Reach me on 0830-1730', 'Reach me on [PHONE]'],
  ['a round pair inside a longer phone', '+1 100-1000; 555 1200-1500', '[PHONE]; [PHONE]'],
  ['a phone after an hours word that is no clock time', 'Office hours: 9-5, Phone 9123-4567, available 1234-5678', 'Office hours: 9-5, Phone [PHONE], available [PHONE]'],
  ['a phone after a salary that ended its sentence', 'Salary: negotiable. 9123-4567', 'Salary: negotiable. [PHONE]'],
  ['a phone after a money word and a contact word', 'Revenue team lead, reach me at 1234-5678', 'Revenue team lead, reach me at [PHONE]'],
  ['round numbers after a contact word', 'Call 1200-1500 or text 0900-1700 hrs', 'Call [PHONE] or text [PHONE] hrs'],
  // A bare domain after a word that points at a site, written in lower case as people write their own.
  ['a personal site after "see"', 'see jane.io', 'see [URL]'],
  ['a personal site after "my site:"', 'my site: janesmith.dev', 'my site: [URL]'],
  ['personal sites after "visit", "see more at", "check out", in brackets', 'Demos: visit janesmith.dev or see more at jane.io (see jd.me; check out janedoe.dev).', 'Demos: visit [URL] or see more at [URL] (see [URL]; check out [URL]).'],
  ['personal sites after a site word', 'Portfolio at janedoe.dev, blog jane.io, website janesmith.dev, homepage: jsmith.me', 'Portfolio at [URL], blog [URL], website [URL], homepage: [URL]'],
  // A bare "at" after words that hand over an address, whatever the local part looks like.
  ['a plain word after "write to"', 'Questions? write to janedoe at acme.com. Write to JaneDoe at acme.io', 'Questions? write to [EMAIL]. Write to [EMAIL]'],
  ['a plain word after "email me at", "mail me:", "drop me a line at"', 'email me at janedoe at acme.com; mail me: jdoe at acme.io; drop me a line at jane at acme.org', 'email me at [EMAIL]; mail me: [EMAIL]; drop me a line at [EMAIL]'],
  ['a plain word after "reach me", with a real or a spelled dot', 'reach me: janedoe at acme.com or reach me: janedoe at acme dot com; you can reach me at jdoe at acme.co.uk', 'reach me: [EMAIL] or reach me: [EMAIL]; you can reach me at [EMAIL]'],
  ['a dotted title after an e-mail or contact label is an address', 'Email: team.lead at acme.com | Contact: team.lead at acme.io', 'Email: [EMAIL] | Contact: [EMAIL]'],
  // A lower-case domain under a top level people take for their own sites, with no cue.
  ['personal top levels in prose', 'my portfolio janedoe.dev has demos; notes at jane.me. Built janedoe.page, jdoe.blog and jane.doe.name with Next.js', 'my portfolio [URL] has demos; notes at [URL]. Built [URL], [URL] and [URL] with Next.js'],
  ['a profile path with no cue', 'code: github.com/janedoe; projects on gitlab.com/jdoe', 'code: [URL]; projects on [URL]'],
  // Phones of a range's shape with a phone word near them.
  ['a round phone after a phone word', 'tel 1200-3400; call 1200-3400; mobile 1200-3400; cell 1200-3400; ph 1200-3400', 'tel [PHONE]; call [PHONE]; mobile [PHONE]; cell [PHONE]; ph [PHONE]'],
  ['local 3-4 numbers', 'Call 555-0100 or 555-0199; office 555-0100', 'Call [PHONE] or [PHONE]; office [PHONE]'],
  ['a round phone before a phone word', '1200-3400 (mobile), 1300-4500 [h], 1400-5600 (work phone); 1200-3400, cell', '[PHONE] (mobile), [PHONE] [h], [PHONE] (work phone); [PHONE], cell'],
  ['a round phone after a request to call further back', 'Please call me any time after six on 1200-3400. My mobile, for recruiters only, is 1300-4500', 'Please call me any time after six on [PHONE]. My mobile, for recruiters only, is [PHONE]'],
  ['a round phone after a call verb or a phone noun with a label\'s words', 'Call the front desk at 1200-3400; Mobile (preferred): 1300-4500; cell phone number 1400-5600; text me at 1500-6700', 'Call the front desk at [PHONE]; Mobile (preferred): [PHONE]; cell phone number [PHONE]; text me at [PHONE]'],
  ['round phones listed after a phone word', 'call 1200-3400 or 1300-4500; Tel: 555-123-4567, 1200-1500; mobile: 1200-3400 / 1300-4500', 'call [PHONE] or [PHONE]; Tel: [PHONE], [PHONE]; mobile: [PHONE] / [PHONE]'],
  ['a round phone after other phone labels', 'M: 1200-3400 | T: 1300-4500 | Fax: 1400-5600 | Cel: 1500-6700 | Cellphone: 1600-7800 | Telephone number is 1700-8900', 'M: [PHONE] | T: [PHONE] | Fax: [PHONE] | Cel: [PHONE] | Cellphone: [PHONE] | Telephone number is [PHONE]'],
  ['a round phone as a column of a contact line', 'Berlin | 1200-3400 | jane@x.com\n1200-3400 • jdoe at gmail.com', 'Berlin | [PHONE] | [EMAIL]\n[PHONE] • [EMAIL]'],
  ['a phone after an hours word and a phone word', 'available on mobile 1200-1700; Office hours 0900-1700, mobile 1200-1700', 'available on mobile [PHONE]; Office hours 0900-1700, mobile [PHONE]'],
  // A handle with the platform named after it, which no label before it announces.
  ['a handle before "on" and a platform', 'Follow @janedoe on Twitter; I am @jdoe85 on GitHub and @jane_d at Telegram.', 'Follow [URL] on Twitter; I am [URL] on GitHub and [URL] at Telegram.'],
  ['a handle before a bracketed or dashed platform', 'Posts as @janedoe (Twitter), @jane.doe [Instagram], @jdoe – Mastodon, @JaneDoe on X', 'Posts as [URL] (Twitter), [URL] [Instagram], [URL] – Mastodon, [URL] on X'],
  ['a handle after words that hand one over', 'follow me @janedoe for talks; ping me at @jdoe85', 'follow me [URL] for talks; ping me at [URL]'],
  ['a fediverse handle', 'Toots at @jane@mastodon.social and @jdoe@fosstodon.org.', 'Toots at [URL] and [URL].'],
];

for (const [what, input, expected] of removed) {
  test(`removes: ${what}`, () => {
    assert.equal(scrub(input), expected);
  });
}

const kept: Array<[string, string]> = [
  // "at" in prose before an employer's or a product's domain.
  ['employers after a bare at', 'worked at Acme.com for 3 years; at google.com we built; Engineer at Hotels.com'],
  ['skills, degrees and versions before a bare at', 'Used Node.js at Booking.com, node.js at shop.io and ASP.NET at hotels.com; B.Tech at iit.ac.in; v2.0 at acme.com'],
  ['abbreviations and hyphenated words before a bare at', 'met 9 a.m at acme.com, i.e at acme.com; full-stack at acme.io, co-founder at startup.io'],
  ['a capitalised title or a sentence before a bare at, in a column', 'Jane | Consultant at Acme.com | 2019\nBerlin | freelance work at acme.io, 2019 | Go'],
  ['a capitalised name before a bare at, after a contact label', 'Contact: Jane at Acme.com; Contact Information: Recruiting at Hotels.com'],
  ['file names before a bare at', 'shipped config.yaml at acme.com and app.py at shop.io'],
  ['a domain with no known top level', 'jane.doe at acme.internal, jane.doe at acme'],
  // Employers', products' and skills' domains in prose, even after a cue word.
  ['an employer in a sentence', 'built checkout for Booking.com; see Booking.com and visit Fly.io for details'],
  ['skills and their sites after a cue word', 'see socket.io, visit node.js docs, see docs.python.org, blog about react.dev'],
  ['cue words inside other words', 'on-site acme.io, oversee acme.io, a blog post on acme.io'],
  ['slashed numbers that are no phones', 'ISO 27001 / 27002, Python 3.10 / 3.11, Acme 08/2019 / 12/2021, ticket 012345/2020'],
  ['long amounts joined by a slash', 'Revenue 1234567 / 7654321; 12 345 678 / 98 765 432 users'],
  // An ASCII hyphen between two numbers of a phone's length: a range when its context or its round numbers say so.
  ['a salary range of round numbers', 'Expected 120000-150000; budget 80000 - 120000; 12000-15000'],
  ['a range after a salary word further back', 'Salary expectation (annual): 123456-145678; expected CTC 1234567-1456789'],
  ['a range before a currency or unit', 'Expected 123456-145678 USD, 123456 - 145678 per annum; p95 1234-1789 ms; 1234-5678 users'],
  ['office hours', 'office hours 0900-1700; Office hours: 0830-1730; Mon-Fri 0900-1700 hrs; shift 0645-1515'],
  ['round figures', 'p95 1200-1500 ms; scaled from 1000-5000 users; a range of 100-1000'],
  ['year ranges with an ASCII hyphen', 'Acme 2015-2019, Beta 1998-2003, Gamma 2019 - 2021'],
  // Job titles at a company and skills before a bare at; words that hand over nothing.
  ['a dotted job title before a bare at', 'I was team.lead at acme.com, then senior.engineer at shop.io\nBerlin | team.lead at acme.com | 2019'],
  ['a skill after "email" before a bare at', 'Led email marketing at acme.com; Email marketing at shop.io'],
  ['a plain word after prose verbs before a bare at', 'wrote to customers at acme.com; managed the contact center at acme.com; reach me at work at acme.com'],
  // Well-known companies' sites after a cue, skills' sites and other top levels in prose.
  ['well-known sites after a cue', 'see google.com, see cloud.google.com, visit coursera.org, check out fly.io, see amazon.co.uk'],
  ['skills, skills\' sites and products under personal top levels', 'blog about react.dev and web.dev; built with node.js, vue.js and asp.net; docs at go.dev'],
  ['code that ends like a personal top level', 'set git user.name and user.email; mapped status.codes; generated build.ninja'],
  ['employers and products under other top levels in prose', 'deployed on fly.io and render.com; worked at acme.com; demos on jane.io; Visit JaneDoe.dev'],
  // Ranges near phone words that are no phones.
  ['office hours after a contact word, and after a phone', 'contact hours 0900-1700; call me on [PHONE] between 0900-1700'],
  ['a count before a phone word and after prose words', 'handled 1200-1500 phone calls; text classification models serving 1200-1500 requests; contact me about scaling to 1200-1500 users'],
  ['a count after a phone word that is prose', 'Shipped mobile apps to 1200-1500 users; cell cultures of 1200-1500 samples; text messages to 1200-1500 customers'],
  ['words ending like a phone label', 'graph 1200-1500; Hotel 1200-1500 rooms; Intel 1234567; m: 1200-3400'],
  // Handles, decorators and package scopes with no platform named after them, or a package rather than a person.
  ['at-words that are no handle of a person', 'Used @angular/core on GitHub, @Override in Java, @types/node on npm; met @ the office on X-ray day'],
  // An employer's or a platform's domain under a personal top level or after a contact cue, and institutions' domains.
  ['an employer under a personal top level after a job title or an employment verb', 'Senior Engineer at acme.dev (2019–2021); worked for shipfast.dev; joined acme.dev as lead'],
  ['a domain the text names its organisation by', 'Acme Labs (acmelabs.dev) builds tools; at Orbit I rebuilt orbit.dev; BBC News: see bbc.co.uk'],
  ['a platform after "find me on" or "follow me on"', 'Find me on codeberg.org, follow me on bsky.app; reach me on signal.org'],
  ['a university, a government or an academic domain after a cue', 'see ox.ac.uk and visit cam.ac.uk; see nasa.gov, visit stanford.edu; see iitb.ac.in'],
  // Counts after words that are contact words only as verbs.
  ['a count after "call" or "contact" used as a noun', 'Managed call volumes of 1200-1500 per day; a contact center with 1200-1500 agents; a ring buffer of 1200-1500 entries; a reach of 1200-1500'],
  ['salary, hours, years and versions near contact details', 'Expected 120000-150000 | office hours 0900-1700 | 2019-2021 | Python 3.10-3.12 | jane@x.com'.replace('jane@x.com', '[EMAIL]')],
];

for (const [what, input] of kept) {
  test(`keeps: ${what}`, () => {
    assert.equal(scrub(input), input);
  });
}

test('every case here scrubs to the same text twice: a placeholder is no phone word', () => {
  // "Tel: [PHONE] between 0900-1700" read "[PHONE]" as the word "phone" and took the hours for a second phone.
  const inputs = [...removed.map(([, input]) => input), ...kept.map(([, input]) => input), 'Tel: 555-123-4567 between 0900-1700'];
  for (const input of inputs) {
    const once = scrub(input);
    assert.equal(scrub(once), once, input);
  }
});
