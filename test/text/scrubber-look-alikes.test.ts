// Contact details and the prose that looks like them: each case here was once scrubbed wrongly one way or the other.
// The rest of the scrubber's cases are in scrubber.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrub } from '../../src/text/scrubber.js';

const removed: Array<[string, string, string]> = [
  // [what, input, expected]
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
];

for (const [what, input, expected] of removed) {
  test(`removes: ${what}`, () => {
    assert.equal(scrub(input), expected);
  });
}

const kept: Array<[string, string]> = [
  ['slashed numbers that are no phones', 'ISO 27001 / 27002, Python 3.10 / 3.11, Acme 08/2019 / 12/2021, ticket 012345/2020'],
  ['long amounts joined by a slash', 'Revenue 1234567 / 7654321; 12 345 678 / 98 765 432 users'],
];

for (const [what, input] of kept) {
  test(`keeps: ${what}`, () => {
    assert.equal(scrub(input), input);
  });
}
