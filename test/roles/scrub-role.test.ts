// A role's free text reaches models scrubbed: a description may name its contact with an email and a phone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderRole } from '../../src/agents/llm/prompt.js';
import { scrubRole } from '../../src/roles/scrub-role.js';
import { GO_ROLE } from '../support/fixtures.js';

const CONTACT_ROLE = {
  ...GO_ROLE,
  title: 'Senior Go engineer (apply: jobs@acme.example)',
  description: `${GO_ROLE.description}\nHiring manager Jane Recruiter, jane.recruiter@acme.example, +1 (415) 555-0199. Office: 12 rue de Rivoli, 75001 Paris. More at https://acme.example/jobs/42`,
};

test('renderRole fences the scrubbed title and description, never the raw contact details', () => {
  const prompt = renderRole(CONTACT_ROLE);
  for (const pii of ['jobs@acme.example', 'Jane Recruiter', 'jane.recruiter', '555-0199', 'rue de Rivoli', 'acme.example/jobs']) {
    assert.ok(!prompt.includes(pii), `${pii} in ${prompt}`);
  }
  assert.match(prompt, /Hiring manager \[NAME\], \[EMAIL\], \[PHONE\]\. Office: \[ADDRESS\]\. More at \[URL\]/);
  assert.match(prompt, /We build distributed systems in Go on Kubernetes/, 'the role itself is intact');
});

test('scrubRole keeps a role without PII as given, and is idempotent', () => {
  assert.deepEqual(scrubRole({ ...GO_ROLE }), GO_ROLE);
  const once = scrubRole(CONTACT_ROLE);
  assert.deepEqual(scrubRole({ ...once }), once);
  // A title is no header name: a two-word title stays.
  assert.equal(scrubRole({ ...GO_ROLE, title: 'Barista Wanted' }).title, 'Barista Wanted');
});

test("a role's location and skills reach the model scrubbed too", () => {
  const prompt = renderRole({
    ...GO_ROLE,
    location: 'Ask jane.doe@acme.example, +1 (415) 555-0199',
    mustHaveSkills: ['Go', 'mail cv to jane.doe@acme.example'],
    niceToHaveSkills: ['call +1 (415) 555-0199'],
  });
  for (const pii of ['jane.doe@acme.example', '555-0199']) assert.ok(!prompt.includes(pii), `${pii} in ${prompt}`);
  assert.match(prompt, /\bGo\b/, 'the skills themselves are there');
});
