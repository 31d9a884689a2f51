// The other forms a person's name takes in their own resume: a middle name or an initial that one of the name field
// and the header has and the other lacks, a nickname, a surname that is a word or a skill. The rest is in
// scrubber.test.ts and scrubber-name-spellings.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrub } from '../../src/text/scrubber.js';

test('a name part that is a common word is removed alone when capitalised, and kept as a word in lower case', () => {
  assert.equal(scrub('Rose led the team; prices rose 5%.', { names: ['Jane Rose'] }), '[NAME] led the team; prices rose 5%.');
  assert.equal(scrub('Tom Young\nSummary\nYoung led the team.'), '[NAME]\nSummary\n[NAME] led the team.');
  // A surname that is a word the name-spelling rules already know ("young", "sales", "key") was removed in lower case
  // too: "mentored young engineers" lost its adjective, "enterprise sales" its skill.
  assert.equal(scrub('Young led the team and mentored young engineers.', { names: ['Jane Young'] }), '[NAME] led the team and mentored young engineers.');
  assert.equal(scrub('Sales led enterprise sales; key accounts.', { names: ['Amy Sales', 'Key'] }), '[NAME] led enterprise sales; key accounts.');
  // A whole name is the name in any case: a first part that is a word kept "will smith" whole.
  assert.equal(scrub('will smith wrote it', { names: ['Will Smith'] }), '[NAME] wrote it');
});

test('a middle name the header shows but the name field lacks is removed wherever it stands', () => {
  const resume = 'Jane Marie Doe\nAustin | jane@x.com\n\nSummary\nMarie led the platform team.';
  assert.equal(scrub(resume, { names: ['Jane Doe'] }), '[NAME]\nAustin | [EMAIL]\n\nSummary\n[NAME] led the platform team.');
  // Not in a header: the known first and last name around it tell it is a middle name.
  const prose = 'References available. Written by Jane Marie Doe; Marie also wrote the runbook.';
  assert.equal(scrub(prose, { names: ['Jane Doe'] }), 'References available. Written by [NAME]; [NAME] also wrote the runbook.');
});

test('a middle name or initial the name field has and the text leaves out, or the other way round, is one name', () => {
  assert.equal(scrub('Signed, Jane Doe and J. Doe', { names: ['Jane Marie Doe'] }), 'Signed, [NAME] and [NAME]');
  assert.equal(scrub('Signed, Jane M. Doe', { names: ['Jane Doe'] }), 'Signed, [NAME]');
  // An initial in the field, the whole middle name in the text.
  assert.equal(scrub('Written by Jane Marie Doe. Marie agreed.', { names: ['Jane M. Doe'] }), 'Written by [NAME]. [NAME] agreed.');
});

test('a nickname of the known first name is removed, and the full name of a known nickname', () => {
  assert.equal(scrub('Jon led the team; Johnny built the CI.', { names: ['Jonathan Smith'] }), '[NAME] led the team; [NAME] built the CI.');
  assert.equal(scrub('Liz reviewed every design; Lizzie Taylor signed.', { names: ['Elizabeth Taylor'] }), '[NAME] reviewed every design; [NAME] signed.');
  assert.equal(scrub('Elizabeth reviewed every design.', { names: ['Liz Taylor'] }), '[NAME] reviewed every design.');
  // Alone, a nickname in capitals is an acronym: AWS SAM is no Samuel.
  assert.equal(scrub('Sam wrote the AWS SAM templates.', { names: ['Samuel Lee'] }), '[NAME] wrote the AWS SAM templates.');
  // A nickname written in quotes between the parts is one too.
  assert.equal(scrub('Robert "Robbie" Chen\nSummary\nRobbie shipped it.'), '[NAME]\nSummary\n[NAME] shipped it.');
});

test('a nickname that is a word is removed only beside the surname', () => {
  const text = 'Bill Chen led billing. Bill payments and Will to win; Will Chen agreed.';
  assert.equal(scrub(text, { names: ['William Chen'] }), '[NAME] led billing. Bill payments and Will to win; [NAME] agreed.');
});

test('a surname that is a skill is removed after a title or the first initial, and kept as the skill', () => {
  const text = 'Built apps in Swift. Ms. Swift led the team; T. Swift and Mr Swift agreed. Taylor Swift signed.';
  assert.equal(scrub(text, { names: ['Taylor Swift'] }), 'Built apps in Swift. Ms. [NAME] led the team; [NAME] and Mr [NAME] agreed. [NAME] signed.');
});

test('name forms are idempotent and leave other capitalised words alone', () => {
  const names = ['Jonathan Marie Smith'];
  const text = 'Jonathan Smith led Apache Kafka work at Acme Corp. Jon wrote Go. J. M. Smith reviewed.';
  const once = scrub(text, { names });
  assert.equal(once, '[NAME] led Apache Kafka work at Acme Corp. [NAME] wrote Go. [NAME] reviewed.');
  assert.equal(scrub(once, { names }), once);
});
