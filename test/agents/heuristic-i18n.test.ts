// The heuristic engine on text that is not plain English: dates, years asked, places and criteria written in other
// languages and other conventions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidateYears } from '../../src/agents/heuristic/career-rules.js';
import { readResume } from '../../src/agents/heuristic/resume-text.js';
import { withoutProtectedCriteria } from '../../src/agents/heuristic/protected-criteria.js';
import { roleProfile, yearsAsked } from '../../src/agents/heuristic/role-profile.js';
import { roleSkills } from '../../src/agents/heuristic/role-terms.js';
import { createHeuristicScorer } from '../../src/agents/heuristic/scorer.js';
import type { CandidateView, RoleSpec } from '../../src/matching/domain.js';

const ROLE: RoleSpec = {
  title: 'Java Developer', description: 'Java backend services.', mustHaveSkills: ['Java'], niceToHaveSkills: [],
  location: null, remote: null, seniority: null, minYearsExperience: null,
};
const view = (text: string, o: Partial<CandidateView> = {}): CandidateView => ({ id: 'c', headline: null, location: null, yearsExperience: null, skills: [], text, ...o });

function yearsIn(text: string): { years: number; from: string } | null {
  const found = candidateYears({ role: roleProfile(ROLE), candidate: view(text), resume: readResume(text), referenceYear: 2025 });
  return found && { years: found.years, from: found.from };
}

test('date ranges in numeric and non-English forms are read as years of work', () => {
  assert.deepEqual(yearsIn('01/2012 - 12/2018 Java Developer'), { years: 6, from: 'dates' });
  assert.deepEqual(yearsIn('2012-01 – 2018-12 Java Developer'), { years: 6, from: 'dates' });
  assert.deepEqual(yearsIn('2012 bis 2018 Java-Entwickler'), { years: 6, from: 'dates' });
  assert.deepEqual(yearsIn('desde 2015 hasta 2018 Desarrollador Java'), { years: 3, from: 'dates' });
  // Open ranges run to the reference year.
  for (const text of ['02/2019 – heute Java-Entwickler', '2019 – actualidad Desarrollador Java', '03.2019 – present Java Developer', '2019 – aujourd’hui Développeur Java']) {
    assert.deepEqual(yearsIn(text), { years: 6, from: 'dates' }, text);
  }
  for (const text of ['Since 2019 Java Developer at Acme', 'seit 03/2019 Java-Entwickler', 'Java-Entwickler, Acme GmbH (seit 2019)', 'depuis 2019 Développeur Java']) {
    assert.deepEqual(yearsIn(text), { years: 6, from: 'dates' }, text);
  }
  // A month's name joined to its year, as English resumes write it too.
  assert.deepEqual(yearsIn('Java Developer\nJun-2016 to Present'), { years: 9, from: 'dates' });
  for (const text of ['Oct-2010 till date Java Developer', 'Mar-2015 - 2018 Java Developer', 'Aug/2014 - Dec 2017 Java Developer', 'Sept.2012 – 2015 Java Developer']) {
    assert.equal(yearsIn(text)?.from, 'dates', text);
  }
});

test('ids, references and "since" in prose are no date ranges', () => {
  for (const text of ['Tel. 0301/2012-2018', 'Ref 2012-20189', 'Invoice 1/2012/2018', 'Order A-2012-2018', 'ID 12.2012.2018', 'Salary 2000-3000', 'Member of the IEEE since 2008']) {
    assert.equal(yearsIn(text), null, text);
  }
});

test('date ranges are read in linear time: 100 KB of near-misses takes well under a second each', () => {
  const size = 100_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  for (const text of [fill('2019 - '), fill('01/2019 '), fill('2019-01 – '), fill('2019 '), `2019${fill(' ')}-${fill(' ')}x`, `(since${fill(' ')}2019`,
    fill('(since 2019 '), fill('since 01/'), fill('2019 to Abcdefgh '), `Since 2019${fill(' ')}x`, fill('1/1/1/')]) {
    const started = process.hrtime.bigint();
    yearsIn(text);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(ms < 1000, `${JSON.stringify(text.slice(0, 20))}: ${ms} ms`);
  }
});

test('a role in French or Italian asks for the skills it names, not for its ordinary words', () => {
  const fr: RoleSpec = {
    ...ROLE, mustHaveSkills: [], title: 'Chef de projet IT',
    description: "Vous pilotez les projets et présentez une vue d'ensemble au comité de direction.\nVous suivez le tableau de bord mensuel.\nExpérience Java et SQL.",
  };
  assert.deepEqual(roleSkills(fr).must, ['Java', 'SQL']);
  const it: RoleSpec = { ...ROLE, mustHaveSkills: [], title: 'Sviluppatore Backend', description: 'Servizi su larga scala, vicino ai clienti. Java e PostgreSQL.' };
  assert.deepEqual(roleSkills(it).must, ['Java', 'PostgreSQL']);
});

test('a place written with or without its accents is the same place', async () => {
  const scorer = createHeuristicScorer({ referenceYear: () => 2025 });
  const logistics = async (roleAt: string, o: Partial<CandidateView>, text = 'Java Developer') => {
    const out = await scorer.score({ role: { ...ROLE, location: roleAt, remote: false }, candidate: view(text, o) }, { orgId: 'o' });
    assert.ok(out.status === 'scored');
    return out.score.subscores.logistics;
  };
  assert.equal(await logistics('Zürich', { location: 'Zurich, Switzerland' }), 10);
  assert.equal(await logistics('Zurich', { location: 'Zürich' }), 10);
  assert.equal(await logistics('İstanbul', { location: 'Istanbul, Turkey' }), 10);
  assert.equal(await logistics('Istanbul', { location: 'İSTANBUL' }), 10);
  assert.equal(await logistics('São Paulo', { location: 'Sao Paulo - SP' }), 10);
  assert.equal(await logistics('Zürich', {}, 'Java Developer in Zurich for six years.'), 7);
  assert.equal(await logistics('Zürich', { location: 'Lisbon' }), 2);
});

test('years asked for and years stated are read in linear time: a number before 100 KB of spaces is one pass', () => {
  const spaces = ' '.repeat(100_000);
  const timed = (label: string, read: () => unknown) => {
    const started = process.hrtime.bigint();
    read();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(ms < 1000, `${label}: ${ms} ms`);
  };
  for (const text of [`5${spaces}x`, `5 (${spaces}x`, `3 -${spaces}x`, `five plus${spaces}x`, `5 +${spaces}x`]) {
    timed(`yearsAsked ${JSON.stringify(text.slice(0, 12))}`, () => yearsAsked(text));
    timed(`candidateYears ${JSON.stringify(text.slice(0, 12))}`, () => yearsIn(`Java Developer ${text}`));
  }
});

test('years asked for in German, Spanish, French, Portuguese and Italian', () => {
  const cases: Array<[string, { min: number; max: number | null }]> = [
    ['Mindestens 5 Jahre Berufserfahrung in Java', { min: 5, max: null }],
    ['Al menos 5 años de experiencia con Java', { min: 5, max: null }],
    ["Au moins 5 ans d'expérience en Java", { min: 5, max: null }],
    ['Pelo menos 5 anos de experiência', { min: 5, max: null }],
    ['Almeno 5 anni di esperienza', { min: 5, max: null }],
    ['3 bis 5 Jahre Erfahrung', { min: 3, max: 5 }],
    ['De 3 a 5 años de experiencia', { min: 3, max: 5 }],
  ];
  for (const [text, wanted] of cases) assert.deepEqual(yearsAsked(text), wanted, text);
  // A range that names its unit twice, and the team's own years, which ask nothing of the candidate.
  assert.deepEqual(yearsAsked('Years of Experience : 2 Yrs - 4 Yrs'), { min: 2, max: 4 });
  assert.deepEqual(yearsAsked('3+ years of Python experience.\nOur team has 12 years of experience in payments.'), { min: 3, max: null });
  // A contract's length is no experience asked for, in any of them.
  for (const text of ['Befristeter Vertrag für 2 Jahre', 'Contrato de 2 años', 'Contrat de 2 ans', 'Contratto di 2 anni']) assert.equal(yearsAsked(text), null, text);
  // "alt" is old in German only after its years: "alt text" in an English role is no age.
  assert.deepEqual(yearsAsked('5+ years of experience in web accessibility (ARIA, alt text)'), { min: 5, max: null });
  assert.equal(yearsAsked('Kandidaten unter 35 Jahre alt'), null);
  // In context wins over a larger number out of it.
  assert.deepEqual(yearsAsked('Unternehmen seit 10 Jahren am Markt.\n3 Jahre Berufserfahrung.'), { min: 3, max: null });
});

test('protected criteria in German, French, Spanish, Portuguese and Italian are dropped like the English ones', () => {
  for (const sentence of [
    'Native English speaker required.', 'Deutsch als Muttersprache erforderlich.', 'Junges, dynamisches Team sucht Verstärkung.',
    'Langue maternelle française exigée.', 'Lengua materna española.', 'Hablante nativo de español.', 'Língua materna portuguesa.',
    'Falante nativo de português.', 'Italiano madrelingua.', 'Rejoignez une équipe jeune et dynamique.', 'Buscamos personas jóvenes.',
    'Cerchiamo giovani talenti.',
  ]) {
    assert.equal(withoutProtectedCriteria(`Java und Spring Boot. ${sentence}`), 'Java und Spring Boot.', sentence);
  }
  const kept = 'Sehr gute Deutschkenntnisse. Anglais courant. Español fluido. Programmazione in Java.';
  assert.equal(withoutProtectedCriteria(kept), kept);
});

test("a role in Spanish or German: its function words are no key phrases or domain vocabulary that any resume in that language shares", async () => {
  const scorer = createHeuristicScorer({ referenceYear: () => 2025 });
  const total = async (role: Partial<RoleSpec>, text: string) => {
    const out = await scorer.score({ role: { ...ROLE, mustHaveSkills: [], ...role }, candidate: view(text) }, { orgId: 'o' });
    assert.ok(out.status === 'scored');
    return out.score;
  };
  const es = {
    title: 'Desarrollador Python',
    description: 'Buscamos un desarrollador de software para el equipo de datos de la empresa. Trabajarás con Python y Django en el desarrollo de APIs para los clientes de la región y con el equipo de producto en la nube.',
  };
  const pastry = await total(es, 'Pastelero con experiencia en la elaboración de tartas y pan para los clientes de la panadería. Trabajé en el obrador de la empresa con el equipo de producción de la tienda.');
  const developer = await total(es, 'Python developer. Built Django REST APIs for data teams, deployed to the cloud.');
  assert.ok(developer.totalScore > pastry.totalScore, `developer ${developer.totalScore} vs pastry chef ${pastry.totalScore}: ${pastry.rationale}`);
  assert.doesNotMatch(pastry.rationale, /\(de\b|\bde la\b|, la\b|, el\b/, pastry.rationale);
  const de = { title: 'Java-Entwickler', description: 'Wir suchen einen Java-Entwickler für die Entwicklung der Backend-Dienste mit Spring und Kafka in der Cloud.' };
  const baker = await total(de, 'Bäcker mit Erfahrung in der Herstellung von Brot für die Filialen der Bäckerei, mit dem Team der Backstube.');
  const javaDev = await total(de, 'Java developer. Spring Boot services with Kafka, deployed to the cloud.');
  assert.ok(javaDev.totalScore > baker.totalScore, `Java developer ${javaDev.totalScore} vs baker ${baker.totalScore}: ${baker.rationale}`);
});
