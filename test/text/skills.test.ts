// Skill names meet however they are written: aliases, prose, near-misses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KNOWN_SKILLS, closestSkills, extractSkills, normalizeSkill, normalizeSkills, relatedSkills, skillKey } from '../../src/text/skills.js';
import { tokenize } from '../../src/text/tokenize.js';

test('aliases normalise to one canonical name', () => {
  const cases: Array<[string, string]> = [
    ['k8s', 'Kubernetes'], ['JS', 'JavaScript'], ['Postgres', 'PostgreSQL'], ['psql', 'PostgreSQL'], ['node', 'Node.js'],
    ['nodejs', 'Node.js'], ['Node.JS', 'Node.js'], ['golang', 'Go'], ['ts', 'TypeScript'], ['ML', 'Machine Learning'],
    ['React.js', 'React'], ['ReactJS', 'React'], ['c#', 'C#'], ['cpp', 'C++'], ['.net', '.NET'], ['dotnet', '.NET'],
    ['Machine-Learning', 'Machine Learning'], ['Type Script', 'TypeScript'], ['RESTful APIs', 'REST API'], ['  scikit learn ', 'scikit-learn'],
  ];
  for (const [raw, canonical] of cases) assert.equal(normalizeSkill(raw), canonical, raw);
});

test('C, C++, C# and .NET stay distinct', () => {
  const keys = ['C', 'C++', 'C#', '.NET', 'ASP.NET', 'F#'].map(skillKey);
  assert.equal(new Set(keys).size, keys.length);
});

test('unknown skills are trimmed and collapsed but keep their own case', () => {
  assert.equal(normalizeSkill('  Quantum   Basket-Weaving '), 'Quantum Basket-Weaving');
  assert.equal(skillKey('  Quantum   Basket-Weaving '), 'quantum basket-weaving');
});

test('normalizeSkills de-duplicates by canonical name and keeps first-seen order', () => {
  assert.deepEqual(normalizeSkills(['k8s', 'Python', 'Kubernetes', 'js', '', 'JavaScript', 'Foo', 'foo ']), ['Kubernetes', 'Python', 'JavaScript', 'Foo']);
});

test('extraction finds skills in prose by alias, whole words only', () => {
  const text = 'Built React.js apps with Redux on Node; CI/CD in Jenkins, HTML/CSS, k8s clusters, Postgres. Javascripting is not a word.';
  assert.deepEqual(extractSkills(text), ['React', 'Redux', 'Node.js', 'CI/CD', 'Jenkins', 'HTML', 'CSS', 'Kubernetes', 'PostgreSQL']);
});

test('Go is the language only in a language context', () => {
  assert.ok(extractSkills('Backend services in Go and Python.').includes('Go'));
  assert.ok(extractSkills('Languages: Go, Rust').includes('Go'));
  assert.ok(extractSkills('Wrote microservices with Golang').includes('Go'));
  for (const text of ['Go to market plan.', 'Ready to go live.', 'Led the go-to-market team.', 'We go further.']) {
    assert.ok(!extractSkills(text).includes('Go'), text);
  }
});

test('R and C are languages in lists, not grades, initials or R&D', () => {
  assert.deepEqual(extractSkills('Statistics in R, Python/R scripts'), ['Statistics', 'R', 'Python']);
  assert.ok(extractSkills('Skills: C, C++, Java').includes('C'));
  for (const text of ['Led R&D for three years.', 'John R. Smith', 'Scored a grade C.', 'Built C-level dashboards']) {
    const found = extractSkills(text);
    assert.ok(!found.includes('R') && !found.includes('C'), `${text} -> ${found.join(', ')}`);
  }
});

test('case-sensitive skills are not taken from ordinary words', () => {
  assert.deepEqual(extractSkills('I excel at teamwork, react fast and get the rest done swiftly.'), []);
  assert.deepEqual(extractSkills('Dashboards in Excel; iOS apps in Swift; React front end; REST services.'), ['Excel', 'iOS', 'Swift', 'React', 'REST API']);
});

test('related skills come from the hand-written graph, both ways', () => {
  assert.ok(relatedSkills('k8s').includes('Docker'));
  assert.ok(relatedSkills('Helm').includes('Kubernetes'));
  assert.ok(relatedSkills('React').includes('TypeScript'));
  assert.ok(relatedSkills('postgres').includes('SQL'));
  assert.deepEqual(relatedSkills('Quantum Basket-Weaving'), []);
});

test('closestSkills suggests the valid entries nearest to a wrong one', () => {
  const vocabulary = [...KNOWN_SKILLS];
  assert.equal(closestSkills('Kubernates', vocabulary)[0], 'Kubernetes');
  assert.equal(closestSkills('postgress', vocabulary)[0], 'PostgreSQL');
  assert.equal(closestSkills('Amazon Web Service', vocabulary)[0], 'AWS');
  assert.equal(closestSkills('javascrpt', vocabulary)[0], 'JavaScript');
  assert.equal(closestSkills('k8s', ['Docker', 'Kubernetes', 'Go'])[0], 'Kubernetes');
  assert.equal(closestSkills('x', vocabulary, 3).length, 3);
});

test('the vocabulary is broad and its canonical names are unique', () => {
  assert.ok(KNOWN_SKILLS.length >= 150);
  assert.equal(new Set(KNOWN_SKILLS.map((s) => s.toLowerCase())).size, KNOWN_SKILLS.length);
  for (const skill of KNOWN_SKILLS) assert.equal(normalizeSkill(skill), skill, skill);
});

test('ordinary words of other languages are no skills: vue, chef, tableau, scala, ai, sem, lua, Rest', () => {
  const cases = [
    "Point de vue client, vue d'ensemble du projet", 'Vue d’ensemble du projet', 'Chef de projet informatique', "Chef d'équipe développement",
    'Tableau de bord et reporting mensuel', 'Esperienza su larga scala ai clienti', 'Desenvolvedor sem experiência com lua',
    'Sem viagens.', 'Der Rest des Teams arbeitet remote', 'Ai sensi della legge',
  ];
  for (const text of cases) assert.deepEqual(extractSkills(text), [], text);
});

test('C-level, C-suite and registered marks are not the languages C and R', () => {
  for (const text of ['Reporting to CEO, C-level executives and the board', '- C-level stakeholder management', 'Presented to the C-suite', 'Microsoft Office(R), Intel(R) Xeon servers', 'Copyright (C) 2020']) {
    const found = extractSkills(text);
    assert.ok(!found.includes('R') && !found.includes('C'), `${text} -> ${found.join(', ')}`);
  }
});

test('the same names written as skills are still found', () => {
  assert.deepEqual(
    extractSkills('Skills: Vue, Chef, Tableau, Scala, Lua, SEM, AI, C, R'),
    ['Vue.js', 'Chef', 'Tableau', 'Scala', 'Lua', 'SEM', 'Artificial Intelligence', 'C', 'R'],
  );
  assert.deepEqual(
    extractSkills('Built Vue.js and Vue apps, provisioned servers with Chef, dashboards in Tableau, Spark jobs in Scala, scripts in Lua.'),
    ['Vue.js', 'Chef', 'Tableau', 'Apache Spark', 'Scala', 'Lua'],
  );
  assert.deepEqual(extractSkills('REST services and a Rest API; AI products; SEM campaigns'), ['REST API', 'Artificial Intelligence', 'SEM']);
  assert.deepEqual(extractSkills('Frameworks: vue, scala, tableau'), ['Vue.js', 'Scala', 'Tableau']);
  assert.deepEqual(extractSkills('Embedded firmware in C (R&D), statistics in R (tidyverse)'), ['C', 'Statistics', 'R']);
});

test('Chinese and Japanese written without spaces: a Han, kana or Hangul run is a word of its own', () => {
  assert.deepEqual(extractSkills('熟练掌握Python和Java，熟悉Docker与Kubernetes'), ['Python', 'Java', 'Docker', 'Kubernetes']);
  assert.deepEqual(extractSkills('Pythonを使ったWeb開発、Dockerの経験'), ['Python', 'Docker']);
  assert.deepEqual(extractSkills('파이썬Python과Go언어'), ['Python']);
  for (const t of ['python', 'java', 'docker', 'kubernetes']) assert.ok(tokenize('熟练掌握Python和Java，熟悉Docker与Kubernetes').includes(t), t);
  assert.deepEqual(tokenize('Kubernetes运维'), ['kubernetes', '运维']);
});

test('.NET keeps its dot at the head of a compound as in its tail: ".NET/C#" is "C#/.NET"', () => {
  assert.deepEqual(extractSkills('.NET/C#'), ['.NET', 'C#']);
  assert.deepEqual(extractSkills('Skills: .NET/C#, SQL Server'), ['.NET', 'C#', 'Microsoft SQL Server']);
  assert.deepEqual(extractSkills('C#/.NET'), ['C#', '.NET']);
  assert.deepEqual(tokenize('.NET/C#'), ['.net', 'c#']);
  assert.deepEqual(tokenize('C#/.NET'), ['c#', '.net']);
  assert.deepEqual(tokenize('.htaccess and ...etc'), ['htaccess']);
});

test('Cyrillic Es in C++ and C#, and an all-caps GO in a list, are the skills', () => {
  assert.deepEqual(extractSkills('Опыт работы с \u0421++ и \u0421#'), ['C++', 'C#']);
  assert.deepEqual(tokenize('\u0421++ \u0441#'), ['c++', 'c#']);
  assert.deepEqual(extractSkills('PROGRAMMING LANGUAGES: GO, PYTHON, R'), ['Go', 'Python', 'R']);
  // The verb in capitals is no language.
  for (const text of ['READY TO GO, ANYWHERE', 'SALES ON THE GO, EVERY DAY', "LET'S GO, TEAM"]) assert.deepEqual(extractSkills(text), [], text);
  assert.ok(!extractSkills("LET'S GO TO MARKET").includes('Go'));
  // The Cyrillic preposition "с" ("with") stays a word.
  assert.deepEqual(extractSkills('работа с Python'), ['Python']);
});
