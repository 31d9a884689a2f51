// Fairness of the scoring: pairs of resumes that differ in one protected fact (an age, a leave, a religion, a sex)
// and roles that ask for one score alike; labelled particulars never reach an agent; every model agent is told so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutProtectedCriteria } from '../../src/agents/heuristic/protected-criteria.js';
import { createHeuristicScorer } from '../../src/agents/heuristic/scorer.js';
import { DATA_RULE, FAIRNESS_RULE } from '../../src/agents/llm/prompt.js';
import { RERANKER_INSTRUCTIONS } from '../../src/agents/llm/reranker.js';
import { SCORER_INSTRUCTIONS } from '../../src/agents/llm/scorer.js';
import type { CandidateView, RoleSpec } from '../../src/matching/domain.js';
import { scrub } from '../../src/text/scrubber.js';

const scorer = createHeuristicScorer({ referenceYear: () => 2025 });
const role = (o: Partial<RoleSpec>): RoleSpec => ({ title: 'Backend Engineer', description: 'Payment APIs in Python with Django and PostgreSQL.', mustHaveSkills: ['Python'], niceToHaveSkills: [], location: null, remote: null, seniority: null, minYearsExperience: null, ...o });
const view = (text: string): CandidateView => ({ id: 'c', headline: null, location: null, yearsExperience: null, skills: [], text });
async function seniority(r: RoleSpec, text: string) {
  const o = await scorer.score({ role: r, candidate: view(text) }, { orgId: 'o' });
  assert.ok(o.status === 'scored');
  return o.score.subscores.seniority;
}
const JR = 'Junior Backend Developer, PayCo, 2024 - 2025\n- Built payment APIs in Python and Django.';

test('an age or a child\'s age is not years of experience', async () => {
  for (const r of [role({ seniority: 'junior' }), role({ seniority: 'senior' })]) {
    const base = await seniority(r, JR);
    assert.equal(await seniority(r, `About me: I am 24 years old.\n${JR}`), base, `${r.seniority}: "24 years old"`);
    assert.equal(await seniority(r, `${JR}\nMother of two kids aged 4 and 7 years.`), base, `${r.seniority}: children's ages`);
  }
});

test('a leave or a career break is not work experience', async () => {
  const text = 'Backend Engineer, PayCo, 2021 - 2025\n- Built payment APIs in Python and Django.';
  const r = role({ seniority: 'senior' });
  assert.equal(await seniority(r, `${text}\nMaternity leave, 2019 - 2021`), await seniority(r, text));
});

test('labelled birth years, compound labels and birthplaces are scrubbed', () => {
  for (const line of ['Date of Birth: 1979', 'DOB: 1979', 'Born: 1979', 'Year of birth: 1979', 'Race/Ethnicity: Black', 'Religion/Caste: Hindu', 'Place of Birth: Lagos, Nigeria', 'Veteran status: Disabled veteran', 'Pregnancy: due in May']) {
    assert.notEqual(scrub(line), line, line);
  }
});

test("a role's sentences asking for a protected characteristic weigh nothing: paired candidates score alike", async () => {
  const base = 'Payment APIs in Python with Django and PostgreSQL.';
  const resume = 'Backend Engineer, PayCo, 2019 - 2025\n- Built payment APIs in Python and Django on PostgreSQL.';
  const pairs: Array<[string, string, string]> = [
    ['Recent graduates only; young and energetic team.', 'Recent graduate, young and energetic.', 'Experienced and reliable.'],
    ['We prefer male candidates.', 'Male, 29.', 'Female, 29.'],
    ['Christian values; active church members preferred.', 'Volunteer at Grace Christian church.', 'Volunteer at the Islamic Center.'],
    ['Native English speaker, born in the USA.', 'Native English speaker, born in the USA.', 'Fluent English (C2), born in India.'],
  ];
  for (const [criterion, a, b] of pairs) {
    const r = role({ description: `${base} ${criterion}` });
    const total = async (extra: string) => {
      const o = await scorer.score({ role: r, candidate: view(`${resume}\n${extra}`) }, { orgId: 'o' });
      assert.ok(o.status === 'scored');
      return o.score.subscores;
    };
    const [sa, sb] = [await total(a), await total(b)];
    assert.equal(sa.hardSkills, sb.hardSkills, criterion);
    assert.ok(Math.abs(sa.domain - sb.domain) <= 1, `${criterion}: domain ${sa.domain} against ${sb.domain}`);
  }
});

test('a sentence is dropped only for a protected criterion: race conditions, React Native, single sign-on and white-box testing stay', () => {
  const kept = 'Debug race conditions in Go. Ship React Native apps. Build single sign-on. Write white-box tests. Mentor engineers.';
  assert.equal(withoutProtectedCriteria(kept), kept);
  assert.equal(withoutProtectedCriteria('Build Go services. Candidates under 35 only.\nYoung team.'), 'Build Go services.');
  // A description pasted without stops is one long run: only the criterion's words go, not the skills around them.
  const run = `seeking full stack engineer join young talented team building python django postgresql services ${'react typescript aws '.repeat(12)}`;
  const out = withoutProtectedCriteria(run);
  assert.doesNotMatch(out, /young/);
  assert.match(out, /python django postgresql/);
});

test('every model agent is told not to weigh protected characteristics, whatever the role asks', () => {
  assert.ok(DATA_RULE.includes(FAIRNESS_RULE));
  for (const instructions of [SCORER_INSTRUCTIONS, RERANKER_INSTRUCTIONS]) assert.match(instructions, /Never let age, sex or gender/);
});

test('a protected criterion in the role title moves no score: the title is read without it', async () => {
  const total = async (title: string, text: string) => {
    const o = await scorer.score({ role: role({ title, description: 'Customer support by phone and email, in Zendesk.', mustHaveSkills: [] }), candidate: view(text) }, { orgId: 'o' });
    assert.ok(o.status === 'scored');
    return o.score.totalScore;
  };
  const pairs: Array<[string, string, string]> = [
    ['Female Customer Support Agent', 'Female, 29.', 'Male, 29.'],
    ['Customer Support Agent (Christian)', 'Volunteer at a Christian church.', 'Volunteer at an Islamic centre.'],
    ['Native English Speaker, Customer Support', 'English: native.', 'English: fluent.'],
  ];
  for (const [title, a, b] of pairs) {
    const job = '\nCustomer Support Agent, HelpCo, 2020 - 2025\n- Answered calls and emails in Zendesk.';
    assert.equal(await total(title, `${a}${job}`), await total(title, `${b}${job}`), title);
  }
});
