// A name the text itself introduces ("My name is Sam Keller", "Regards,\nSam Keller", "Referee: Dr. Jane Smith") when the
// candidate record has no name field and the name is in no header or "Name:" line: removed there and wherever else it
// is written. Look-alikes (a job title, a skill, a company, a nationality after the same words) stay. The rest of the
// scrubber's cases are in scrubber.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrubRow } from '../../src/candidates/candidate-service.js';
import { scrub } from '../../src/text/scrubber.js';

// A resume whose first line is no name, so the header rule finds nothing: the text after it carries the name.
const HEADING = 'Backend engineer, 6 years of Go and Kafka.\n\n';

const removed: Array<[string, string, string]> = [
  // [what, input, expected]
  ['my name is', 'My name is Sam Keller. Keller built the billing system.', 'My name is [NAME]. [NAME] built the billing system.'],
  ["I'm, then a comma", "I'm Sam Keller, a backend engineer. Sam led the migration.", "I'm [NAME], a backend engineer. [NAME] led the migration."],
  ['I am, then and', 'I am Sam Keller and I build payment systems.', 'I am [NAME] and I build payment systems.'],
  ['colleagues call me', 'Colleagues call me Sam Keller; Keller reviews every design.', 'Colleagues call me [NAME]; [NAME] reviews every design.'],
  ['here, opening a letter', 'Sam Keller here — backend engineer looking for a platform role.', '[NAME] here — backend engineer looking for a platform role.'],
  ['this is', 'Dear hiring team,\nThis is Sam Keller, applying for the Go role.', 'Dear hiring team,\nThis is [NAME], applying for the Go role.'],
  ["a greeting, then I'm and a first name", "Hi, I'm Sam! Sam ships Go services.", "Hi, I'm [NAME]! [NAME] ships Go services."],
  ['signed', 'Thanks for reading.\nsigned, Sam Keller', 'Thanks for reading.\nsigned, [NAME]'],
  ['regards on the line before', 'I look forward to hearing from you.\n\nRegards,\nSam Keller\nBackend engineer', 'I look forward to hearing from you.\n\nRegards,\n[NAME]\nBackend engineer'],
  ['a dash at the end of a cover letter', 'I would love to help your team ship.\n— Sam Keller', 'I would love to help your team ship.\n— [NAME]'],
  ['a contact label', 'Contact: Sam Keller | [EMAIL]', 'Contact: [NAME] | [EMAIL]'],
  ['a referee with a title and an employer', 'Referee: Dr. Jane Smith, Acme Corp', 'Referee: Dr. [NAME], Acme Corp'],
  ['references with a role in brackets', 'References: John Doe (manager)', 'References: [NAME] (manager)'],
  // The whole forms of an introduced name are found as a header's are: particles, initials, apostrophes, accents.
  ['particles, an initial, an apostrophe', 'My name is Ludwig van Beethoven. I am Sean P. O’Brien.', 'My name is [NAME]. I am [NAME].'],
  ['accented letters', 'Je suis ingénieur. My name is José García; García wrote it.', 'Je suis ingénieur. My name is [NAME]; [NAME] wrote it.'],
  ['a kind-regards sign-off on its own line, a title after the name', 'Kind regards,\nSam Keller, Backend Engineer', 'Kind regards,\n[NAME], Backend Engineer'],
  ['I go by', 'Samuel on paper, but I go by Sam.', '[NAME] on paper, but I go by [NAME].'],
  // A contact detail after the name ends it as punctuation does.
  ['an address after a signed name', 'Regards,\nSam Keller <sam@acme.io>\n-- Jane Roe [PHONE]', 'Regards,\n[NAME] <[EMAIL]>\n-- [NAME] [PHONE]'],
  // In capitals, as forms and signatures write it; then in any capitalised form.
  ['in capitals after my name is', 'MY NAME IS JOHN SMITH. John Smith wrote it; SMITH too.', 'MY NAME IS [NAME]. [NAME] wrote it; [NAME] too.'],
  ['in capitals after a sign-off and a label', 'Regards,\nJOHN SMITH\nReferee: DR. JANE O’NEILL, Acme', 'Regards,\n[NAME]\nReferee: DR. [NAME], Acme'],
  ['a surname in capitals', "I'm Jean DUPONT, a backend engineer. Dupont ships.", "I'm [NAME], a backend engineer. [NAME] ships."],
  // Generations and degrees after the name are no part of it, and what follows them ends it.
  ['a degree after the name, no comma', "I'm Jane Doe MBA and I lead product teams. Doe ships.", "I'm [NAME] MBA and I lead product teams. [NAME] ships."],
  ['a generation and degrees after signed names', 'Regards,\nJohn Smith Jr.\nKind regards,\nJane Roe, Ph.D., PMP', 'Regards,\n[NAME] Jr.\nKind regards,\n[NAME], Ph.D., PMP'],
  ['a two-letter degree after a contact', 'Contact: Sam Keller, MD | [EMAIL]', 'Contact: [NAME], MD | [EMAIL]'],
  // Referees on the lines under a references heading, each with its title, employer and contact details.
  [
    'referees under a References heading',
    'References\nJane Roe, Engineering Manager, Acme Corp\n[EMAIL] | [PHONE]\n\nDr. John Doe – CTO, Beta Inc\nMark Lee (former lead) [PHONE]',
    'References\n[NAME], Engineering Manager, Acme Corp\n[EMAIL] | [PHONE]\n\nDr. [NAME] – CTO, Beta Inc\n[NAME] (former lead) [PHONE]',
  ],
  [
    'numbered referees under a heading in capitals',
    'REFEREES:\n\n1. JANE ROE\nHead of Data\nPhone: [PHONE]\n\n2. Sam Keller\nCTO, Beta',
    'REFEREES:\n\n1. [NAME]\nHead of Data\nPhone: [PHONE]\n\n2. [NAME]\nCTO, Beta',
  ],
  // A referee's entry starts the section, follows a blank line, a bullet or a contact line, or goes on after the name;
  // a line of two capitalised words inside an entry is its employer or title.
  [
    'an employer alone on its line inside an entry',
    'References\nJane Roe\nEngineering Manager\nStripe Atlas\n[PHONE]\nJohn Doe\nGoldman Sachs',
    'References\n[NAME]\nEngineering Manager\nStripe Atlas\n[PHONE]\n[NAME]\nGoldman Sachs',
  ],
  ['the section ends at the next heading', 'References\nJane Roe\n\nHobbies\nRock Climbing', 'References\n[NAME]\n\nHobbies\nRock Climbing'],
  // A heading no list holds ends it too: a word alone after a blank line starts no referee's entry.
  [
    'the section ends at a heading of a word no list holds',
    'References\nJane Roe, Acme\n[PHONE]\n\nVolunteering\nRed Cross, Weekend Driver\n\nPatents:\nDistributed Ledger Sync, filed 2020',
    'References\n[NAME], Acme\n[PHONE]\n\nVolunteering\nRed Cross, Weekend Driver\n\nPatents:\nDistributed Ledger Sync, filed 2020',
  ],
  // A surname that is a skill after a given name: the whole name goes, the skill alone stays (as for a known name).
  ['a skill surname after a given name', "I'm Tom Swift, an iOS engineer: Swift and SwiftUI daily. Tom ships.", "I'm [NAME], an iOS engineer: Swift and SwiftUI daily. [NAME] ships."],
  ['a two-letter skill surname', 'My name is Ann Go. Go and Kafka; Ann Go wrote the broker.', 'My name is [NAME]. Go and Kafka; [NAME] wrote the broker.'],
  ['a skill surname that is a heading word, under references', 'References\nMaria Python, Data Lead, Acme', 'References\n[NAME], Data Lead, Acme'],
  // A quotation's attribution on the last line is read as a signature, on purpose: the same line names a colleague a
  // testimonial quotes, a third person's name, and a famous author's carries nothing a match should weigh.
  ['a quotation attributed on the last line', '“Imagination is more important than knowledge.”\n— Albert Einstein', '“Imagination is more important than knowledge.”\n— [NAME]'],
  ['a testimonial attributed on the last line', '“The best engineer I have hired.”\n— Sam Keller, CTO at Acme', '“The best engineer I have hired.”\n— [NAME], CTO at Acme'],
  ['every referee on a references line', 'References: John Doe (manager), Jane Roe (peer); Dr. Sam Keller', 'References: [NAME] (manager), [NAME] (peer); Dr. [NAME]'],
  // A referee named inside another's entry under a heading: after a common given name or a title, or as the next of a
  // list (after ";" or a closing bracket).
  [
    'a referee named inside another referee’s entry',
    'References\nJane Doe, Head of Data, Acme — reports to John Smith\n[PHONE]',
    'References\n[NAME], Head of Data, Acme — reports to [NAME]\n[PHONE]',
  ],
  [
    'two referees on one line under a heading',
    'References\nJane Doe (Acme), Xiaoming Zhang (Globex)\n\nPriya Raman, CTO, Initech; Dr. Okafor, Hooli',
    'References\n[NAME] (Acme), [NAME] (Globex)\n\n[NAME], CTO, Initech; Dr. [NAME], Hooli',
  ],
  // A closing bracket ends a name a relation or a title introduces; a name alone in brackets is an employer's.
  [
    'a referee named in brackets inside another referee’s entry',
    'References\nJane Roe (reports to John Smith)\nSam Keller, Senior Engineer (Charles Schwab)\nPriya Raman (works under Dr. Okafor)',
    'References\n[NAME] (reports to [NAME])\n[NAME], Senior Engineer (Charles Schwab)\n[NAME] (works under Dr. [NAME])',
  ],
  // A label that names a person, right after an opening bracket: the closing bracket ends its value, as a comma does.
  [
    'a person a label names in brackets after an employer',
    'Software Engineer, Acme (manager: John Smith)\nData Analyst, Globex (Manager: Dr. Priya Raman)\nIntern, Initech (supervisor: Xiaoming Zhang, CTO)\nContractor, Hooli (ref: Sam Okafor)',
    'Software Engineer, Acme (manager: [NAME])\nData Analyst, Globex (Manager: Dr. [NAME])\nIntern, Initech (supervisor: [NAME], CTO)\nContractor, Hooli (ref: [NAME])',
  ],
  [
    'a contact or a referee label in brackets, on a line of its own too',
    'Acme Corp (Contact: Jane Roe)\nGlobex [Contact: Sam Keller]\n(Referee: Mark Lee)\n[Manager: Ann Chen]',
    'Acme Corp (Contact: [NAME])\nGlobex [Contact: [NAME]]\n(Referee: [NAME])\n[Manager: [NAME]]',
  ],
  ['a person a label names in brackets inside a referee’s entry', 'References\nJane Roe (manager: John Smith)\n[PHONE]', 'References\n[NAME] (manager: [NAME])\n[PHONE]'],
  // A relation with a colon is such a label, with a title or a common given name as without one.
  [
    'a relation with a colon in brackets',
    'Software Engineer, Acme (reports to: John Smith)\nData Analyst, Globex [Reporting to: Dr. Priya Raman]\nReferences\nJane Roe (reporting to: Sam Keller)\n[PHONE]',
    'Software Engineer, Acme (reports to: [NAME])\nData Analyst, Globex [Reporting to: Dr. [NAME]]\nReferences\n[NAME] (reporting to: [NAME])\n[PHONE]',
  ],
  // Further people in the same brackets, each with a title or a common given name, after any separator or label.
  [
    'a second person in a label’s brackets',
    'Intern, Initech (ref: John Smith, Jane Doe)\nAcme Corp (Contact: Jane Roe, Sam Keller)\nGlobex (manager: John Smith; peer: Jane Roe)\nHooli [supervisor: Mark Lee, Dr. Xiaoming Zhang]',
    'Intern, Initech (ref: [NAME], [NAME])\nAcme Corp (Contact: [NAME], [NAME])\nGlobex (manager: [NAME]; peer: [NAME])\nHooli [supervisor: [NAME], Dr. [NAME]]',
  ],
  // A references label lists referees on its line in brackets too, as the next of a list.
  [
    'referees a references label in brackets lists',
    'Globex (References: John Doe (manager), Xiaoming Zhang (peer))\nAcme [Referee: Mark Lee], Priya Raman (Initech)',
    'Globex (References: [NAME] (manager), [NAME] (peer))\nAcme [Referee: [NAME]], [NAME] (Initech)',
  ],
  // Rules 15: a lead, an advisor, a mentor, a sponsor, a coach or a PI in brackets, with a title or a common given name;
  // a dash for the colon; a person that only "and", "&" or "/" separates from the next; a manager's or supervisor's
  // label alone at a line's start, with a title or a common given name.
  [
    'a lead, an advisor, a mentor or a PI a label names in brackets',
    'Software Engineer, Acme (lead: John Smith)\nResearch Assistant, MIT (advisor: Prof. Jane Roe)\nIntern, Initech (mentor: Priya Raman)\n' +
      'Engineer, Hooli (Tech Lead: Sam Keller)\nScientist, CERN (PI: Dr. Xiaoming Zhang)',
    'Software Engineer, Acme (lead: [NAME])\nResearch Assistant, MIT (advisor: Prof. [NAME])\nIntern, Initech (mentor: [NAME])\n' +
      'Engineer, Hooli (Tech Lead: [NAME])\nScientist, CERN (PI: Dr. [NAME])',
  ],
  [
    'a dash for a label’s colon in brackets',
    'Engineer, Acme (Manager – John Smith)\nAnalyst, Globex (supervisor - Dr. Xiaoming Zhang)\nIntern, Initech [ref — Jane Doe]',
    'Engineer, Acme (Manager – [NAME])\nAnalyst, Globex (supervisor - Dr. [NAME])\nIntern, Initech [ref — [NAME]]',
  ],
  [
    'two people in a label’s brackets that only and or a slash separates',
    'Engineer, Acme (ref: John Smith and Jane Doe)\nAnalyst, Globex (supervisor: Mark Lee / Ann Chen)\nIntern, Initech (manager: Sam Keller & Priya Raman)',
    'Engineer, Acme (ref: [NAME] and [NAME])\nAnalyst, Globex (supervisor: [NAME] / [NAME])\nIntern, Initech (manager: [NAME] & [NAME])',
  ],
  [
    'a manager or supervisor label at a line’s start',
    'Backend Engineer, Acme 2019–2023\nManager: John Smith\n- Reporting to: Dr. Xiaoming Zhang\nSUPERVISOR: JANE ROE',
    'Backend Engineer, Acme 2019–2023\nManager: [NAME]\n- Reporting to: Dr. [NAME]\nSUPERVISOR: [NAME]',
  ],
  // Rules 16: a hiring, project or engineering manager in brackets, a contact label a word or two into brackets, and a
  // lead's, a mentor's or an advisor's label alone at a line's start, each with a title or a common given name.
  [
    'a manager whose kind is said, or a contact a word into brackets',
    'Engineer, Acme (hiring manager: Jane Roe)\nAnalyst, Globex (Engineering Manager: Dr. Xiaoming Zhang)\nIntern, Initech (client contact: John Smith)\n' +
      'Volunteer, Red Cross (emergency contact: Dr. Priya Raman, Acme Corp)',
    'Engineer, Acme (hiring manager: [NAME])\nAnalyst, Globex (Engineering Manager: Dr. [NAME])\nIntern, Initech (client contact: [NAME])\n' +
      'Volunteer, Red Cross (emergency contact: Dr. [NAME], Acme Corp)',
  ],
  ['a lead, a mentor or an advisor label at a line’s start', 'Backend Engineer, Acme\nLead: Jane Roe\nMentor: Dr. Xiaoming Zhang\n- Advisor: Prof. Sam Keller', 'Backend Engineer, Acme\nLead: [NAME]\nMentor: Dr. [NAME]\n- Advisor: Prof. [NAME]'],
  [
    'a reviewer, a director, a recruiter or a boss a label names',
    'Paper, ICSE 2021 (reviewer: Jane Roe)\nAnalyst, Globex (Director: Dr. Xiaoming Zhang)\nLab, MIT (principal investigator: Prof. Sam Keller)\nIntern, Acme (boss: John Smith)\nRecruiter: Priya Raman',
    'Paper, ICSE 2021 (reviewer: [NAME])\nAnalyst, Globex (Director: Dr. [NAME])\nLab, MIT (principal investigator: Prof. [NAME])\nIntern, Acme (boss: [NAME])\nRecruiter: [NAME]',
  ],
  // Rules 17: an editor named in brackets, and whose a relation is ("my", "our") before any label in brackets.
  [
    'an editor in brackets, and a relation that says whose',
    'Chapter, O’Reilly 2022 (editor: Jane Roe)\nIntern, Acme (my boss: John Smith)\nEngineer, Globex (our lead: Dr. Xiaoming Zhang)\n' +
      'Analyst, Initech (My Manager: Xiaoming Zhang)',
    'Chapter, O’Reilly 2022 (editor: [NAME])\nIntern, Acme (my boss: [NAME])\nEngineer, Globex (our lead: Dr. [NAME])\n' +
      'Analyst, Initech (My Manager: [NAME])',
  ],
  // Alone in a text, with no other label's word beside it.
  ['an editor in brackets, alone', 'Wrote a chapter on Go concurrency (editor: Jane Roe).', 'Wrote a chapter on Go concurrency (editor: [NAME]).'],
  ...[
    'manager', 'supervisor', 'hiring manager', 'ref', 'reports to', 'lead', 'tech lead', 'advisor', 'adviser', 'supervised by', 'thesis supervised by',
    'mentor', 'mentored by', 'sponsor', 'coach', 'PI', 'principal investigator', 'reviewer', 'interviewer', 'recruiter', 'director', 'boss', 'editor',
  ].map((label): [string, string, string] => [`the "${label}" label, alone in its text`, `Analyst, Globex (${label}: Jane Roe)`, `Analyst, Globex (${label}: [NAME])`]),
  // What else a label's brackets list after its person is an employer, a title or a stack, and stays, as do the
  // employers and places on the lines after; a references label's line lists referees, not a manager's.
  [
    'an employer, a title or a stack after a person in a label’s brackets',
    'Acme (Contact: Jane Roe, Acme Corp)\nGlobex (manager: John Smith, CTO)\nInitech (ref: Sam Keller, Goldman Sachs; Berlin)\n' +
      'Hooli (reporting manager: Mark Lee, Goldman Sachs; Berlin)\nUmbrella (supervisor: Ann Chen; Stack: Node, Postgres)\n' +
      'Senior Engineer (Charles Schwab)\nEngineering Manager: Stripe Atlas\nMountain View, CA',
    'Acme (Contact: [NAME], Acme Corp)\nGlobex (manager: [NAME], CTO)\nInitech (ref: [NAME], Goldman Sachs; Berlin)\n' +
      'Hooli (reporting manager: [NAME], Goldman Sachs; Berlin)\nUmbrella (supervisor: [NAME]; Stack: Node, Postgres)\n' +
      'Senior Engineer (Charles Schwab)\nEngineering Manager: Stripe Atlas\nMountain View, CA',
  ],
  ['a referee on a line of its own inside another’s entry', 'References\nJane Roe\nCTO\nJohn Doe\nGoldman Sachs', 'References\n[NAME]\nCTO\n[NAME]\nGoldman Sachs'],
  // Headings over referees in other words: "available" alone hands the list over.
  ['referees under a References available heading', 'REFERENCES AVAILABLE\nJane Roe, CTO, Acme\n[PHONE]', 'REFERENCES AVAILABLE\n[NAME], CTO, Acme\n[PHONE]'],
  ['referees under a Personal Referees heading', 'Personal Referees -\nJane Roe, CTO, Acme\n\nCharacter References:\nSam Keller, Pastor', 'Personal Referees -\n[NAME], CTO, Acme\n\nCharacter References:\n[NAME], Pastor'],
  // An entry that starts with the referee's employer: the person after it goes, the employer stays wherever it is written.
  [
    'an entry that starts with the referee’s employer',
    'Interned at Goldman Sachs in 2016.\n\nReferences\nGoldman Sachs – Jane Doe, CTO\n[PHONE]\n\nAcme Corp: John Smith, VP Engineering',
    'Interned at Goldman Sachs in 2016.\n\nReferences\nGoldman Sachs – [NAME], CTO\n[PHONE]\n\nAcme Corp: [NAME], VP Engineering',
  ],
  // Two capitals after the comma that abbreviate a title, not a state or a country.
  ['a referee whose title is an abbreviation', 'References\nJane Roe, VP Engineering, Acme\n\nReferee: Sam Keller, HR Manager', 'References\n[NAME], VP Engineering, Acme\n\nReferee: [NAME], HR Manager'],
  // After a referee's name, a given name starts an employer named after a person: it stays.
  ['an employer named after a person, after the referee', 'References\nJane Roe, Financial Advisor – Edward Jones', 'References\n[NAME], Financial Advisor – Edward Jones'],
  // A referee's town on a line of the entry: a place word ends it, though its state is also a degree ("MD").
  ['a referee’s town whose state is also a degree', 'References\nJane Roe, CTO, Acme Corp\nOcean Pines, MD\n[PHONE]', 'References\n[NAME], CTO, Acme Corp\nOcean Pines, MD\n[PHONE]'],
  // A declaration's signer: on a line of its own after the place and the date, in brackets or in capitals, or in a column.
  [
    'a declaration signed in brackets on its own line',
    'Rahul led the data team.\n\nDECLARATION\nI hereby declare that the above information is true to the best of my knowledge.\nPlace: Pune\nDate: 12/03/2020\n(Rahul Sharma)',
    '[NAME] led the data team.\n\nDECLARATION\nI hereby declare that the above information is true to the best of my knowledge.\nPlace: Pune\nDate: 12/03/2020\n([NAME])',
  ],
  [
    'a declaration signed in capitals in a column beside the date',
    'I do hereby solemnly declare that the particulars furnished above are correct.\nDate: 12/03/2020            (RAHUL KUMAR SHARMA)\nPlace: Mumbai',
    'I do hereby solemnly declare that the particulars furnished above are correct.\nDate: 12/03/2020            ([NAME])\nPlace: Mumbai',
  ],
  ['a declaration signed after a blank line', 'I declare that all of the above is true.\n\nPriya Patel\nBengaluru', 'I declare that all of the above is true.\n\n[NAME]\nBengaluru'],
  ['a signature label', 'Date: 12/03/2020\tSignature: Priya Patel', 'Date: 12/03/2020\tSignature: [NAME]'],
  ['a signed-by label in brackets', 'Signed by: (Priya Patel)', 'Signed by: ([NAME])'],
];

for (const [what, input, expected] of removed) {
  test(`removes an introduced name: ${what}`, () => {
    assert.equal(scrub(HEADING + input), HEADING + expected);
  });
}

const kept: Array<[string, string]> = [
  // Job titles and skills after the same words.
  ['a job title after I am', "I'm Senior Engineer at Acme. I am Lead Developer, and I am Team Lead."],
  ['a skill after I am', 'I am Go developer. I am Java, Spring and Kafka developer. I am Scrum Master certified.'],
  ['certifications in capitals', "I'm AWS certified. I'm Microsoft Certified. I am Google Cloud Certified, and I'm Salesforce Admin."],
  ['a name that is no name', 'My name is on the patent. My name is listed in the paper.'],
  ['a team signing off', 'Regards, The Acme Team\n\nThanks,\nThe Hiring Team\n\nBest,\nRecruiting Team'],
  ['a skill or a company after this is', 'This is Kubernetes. This is Acme Corp’s flagship product. This is Google.'],
  ['adjectives in title case', "I'm Excited to apply. I am Passionate, Reliable and Punctual. I'm Available. I am Fluent in Go."],
  ['nationalities and languages', "I'm Canadian and I am Bilingual. I am German, and I'm British."],
  ['a hyphenated place or trait', 'I am Berlin-based. I am Detail-Oriented.'],
  ['a day after call me', 'Call me Monday. Call me ASAP. Please call me at [PHONE].'],
  ['a place after a contact label', 'Contact: New York | [EMAIL]\nContact: Mountain View, CA\nContact: Berlin, Germany'],
  ['references on request', 'References: Available upon request\nReferences: Available Upon Request\nReferences - Provided on Request'],
  // A line saying references are given on request names no one: as a heading it starts no section, under one it ends it.
  ['a references-on-request heading starts no section', 'REFERENCES AVAILABLE UPON REQUEST\nStrange Loop, St. Louis 2019\nReferences available on request.\nGrace Hopper Celebration, 2018'],
  ['references on request end the section under a heading', 'References\nAvailable on request.\nTalks\nStrange Loop, St. Louis 2019'],
  // Employers and titles after a referee's name, and a given name that is one of an employer's words after a comma.
  [
    'employers after a referee’s name under a heading, one named after a person',
    'References\n[NAME], CTO, Goldman Sachs | Morgan Stanley\n[NAME] (Head of Data, Wells Fargo)\n[NAME], Financial Advisor – Edward Jones, 2016',
  ],
  ['an employer of three words starting with a given name, alone inside an entry', 'References\n[NAME]\nEngineering Manager\nGrace Hopper Academy\n[PHONE]'],
  ['a heading with here', 'Code Samples here: [URL]\nClick here. More Details here:'],
  ['a skill list ending in a dash bullet', 'Skills\n- Public Speaking\n– Team Leadership'],
  ['signed and designed in prose', 'Designed UI; signed RESTful services; signed Acme Corp as a client.'],
  ['a company alone after a sign-off word in prose', 'Best practices at Acme; thanks to Kafka we scaled.'],
  ['a heading after a sentence of thanks', 'Thank you for reading.\nKey Accomplishments\nThanks!\nKey Wins'],
  ['a team or a list after a contact label, in the plural', 'Contact: Samba Developers; Contact: Public Suffix List <[EMAIL]>\nReferences: Senior Engineers (2)'],
  // An acronym alone is no name in capitals, and organisations, skills and teams in capitals are none either.
  ['titles, employers and contact lines under a references heading', 'References\nEngineering Manager, Acme Corp\nHead of Data Science\nGlobex Industries | [EMAIL]\nAvailable on request'],
  ['a referee line that goes on to employers and titles', 'Referee: Dr. [NAME], Acme Corp, Senior Engineer; Head of Data'],
  // A place of two or three words after a contact label, with no state or country after it to tell.
  ['a place after a contact label', 'Contact: Palo Alto\nContact: Menlo Park | [EMAIL]\nBased in Palo Alto; Contact: Tel Aviv'],
  // A place whose last word is a place word, after a contact or referee label, though its state is also a degree.
  ['a place whose state is also a degree', 'Contact: Ocean Pines, MD | [EMAIL]\nContact: Ocean Springs, MS\nReferee: [NAME], Boulder Creek, MD'],
  ['products whose second word is a skill', 'Contact: Apache Kafka\nThis is Microsoft Azure.\nReferences: Advanced Python, Modern Java'],
  // In brackets after a title, an employer, a team, or what a label that names no person introduces (a stack, tools,
  // skills, a client, a place); and one word after a contact label, as outside brackets ("Contact: Berlin").
  [
    'an employer, a team, a stack or skills in brackets after a title',
    'Senior Engineer (Charles Schwab)\nDeveloper (Contact Center team)\nEngineer (Stack: Node, Postgres)\nLead (Tools: Jira, Confluence)\n' +
      'Data Engineer (Skills: Python, Go)\nConsultant (Client: Charles Schwab; Location: Palo Alto)\nSupport Engineer (Contact: Berlin)',
  ],
  ['the same in brackets inside a referee’s entry', 'References\n[NAME], Senior Engineer (Charles Schwab)\n[NAME], Lead (Tools: Jira, Confluence)\n[NAME] (Client: Charles Schwab)'],
  // "ref" also refers to a document: a value with no title and no common given name stays.
  ['a document after ref in brackets', 'Quarterly filing (ref: Annual Report)\nMigration plan [Ref: Case Study]'],
  // A relation with a colon to a role: a value with no title and no common given name stays.
  ['a role after a relation with a colon in brackets', 'Team Lead (reports to: Head of Data)\nEngineer [reporting to: VP Engineering]\nAnalyst (Reports to: Goldman Sachs Board)'],
  // Outside brackets a manager label after a title is the title's, and an employer follows it.
  ['a title ending in Manager, then its employer', 'Engineering Manager: Stripe Atlas, 2019–2023\nProduct Manager: Charles Schwab'],
  // What a lead, an advisor or a dash introduces with neither a title nor a common given name is a team, an employer or
  // a role; a hyphen without a space before it joins words; at a line's start a manager label needs a person's name too.
  [
    'a team, an employer or a role after a relation label or a dash in brackets',
    'Team Lead (lead: Platform Team)\nData Team (advisor: Acme Ventures)\nEngineer (Manager – Payments)\nEngineer (Manager-led squad)\n' +
      'Scientist (PI: Grant Office)\nTeam (mentor: Open Source Guild)',
  ],
  ['a manager label at a line’s start before an employer', 'Manager: Stripe Atlas\nSupervisor: Goldman Sachs Operations\nReports to: Head of Data'],
  // An editor is a person's only in brackets, and with a title or a common given name; at a line's start it is a tool's.
  ['a tool after an editor label, a journal after one in brackets', 'Editor: VS Code\nEditor: Neovim\nPaper (editor: Nature Reviews)\nBlog (my lead: Platform Team)'],
  ['a document joined by and after ref in brackets', 'Quarterly filing (ref: Annual Report and Accounts)'],
  [
    'a product, a team or a place after a manager whose kind is said, a contact a word into brackets or a lead at a line’s start',
    'Developer (Product Manager: Payments App)\nAnalyst (Project Manager – Data Platform)\nEngineer (Sales contact: Berlin Office)\nSupport (regional contact: Berlin)\n' +
      'Lead: Platform Migration\nTech Lead: Payments Platform\nMentor: Open Source Guild\nDeveloper (Director: Engineering)\nDirector: Product Design\nAcme (recruiter: Talent Team)',
  ],
  // After a declaration, lines of skills, places and headings are no signer; nor is a signature label's blank or a dish.
  ['what follows a declaration that names no one', 'I certify that I completed:\nMachine Learning\nGoogle Cloud\nApache Kafka\nPlace: New Delhi\nSignature: ____________'],
  ['a signature label that names no person', 'Signature Dish: Paneer Tikka\nSignature: Verified\nSign: Yes'],
  // A declaration a PDF export left above further sections signs none of their lines.
  ['the sections after a declaration', 'DECLARATION\nI hereby declare that all of the above is true.\n\nTECHNICAL SKILLS\nAdvanced Excel\nVisual Basic\nTally Prime\nAmazon Redshift\n\nHOBBIES\nReading Novels'],
  ['acronyms and organisations in capitals', "I'm AWS CERTIFIED. I am SAP FICO, SAP MM. Thanks,\nACME\nRegards,\nTHE ACME TEAM\nContact: HR DEPARTMENT | [EMAIL]\nCONTACT: ABC LLC"],
];

for (const [what, input] of kept) {
  test(`keeps a look-alike of an introduced name: ${what}`, () => {
    assert.equal(scrub(HEADING + input), HEADING + input);
  });
}

test('an introduced name is removed wherever the text repeats it, in any form a header name would be', () => {
  const resume = `${HEADING}About me: my name is Samuel Keller.\nSam Keller led the team; Keller wrote the runbook. Mail samuelkeller at acme.com.`;
  assert.equal(scrub(resume), `${HEADING}About me: my name is [NAME].\n[NAME] led the team; [NAME] wrote the runbook. Mail [EMAIL].`);
});

test('a record with no name field: its stored scrubbed resume holds no introduced name', () => {
  const row = { id: 'x', name: null, email: null, phone: null, headline: 'Backend engineer', location: 'Berlin', skills: ['Go'] };
  const scrubbed = scrubRow({ ...row, resume: `${HEADING}Colleagues call me Sam Keller.\n\nRegards,\nSam Keller` });
  assert.equal(scrubbed.scrubbedText, `${HEADING}Colleagues call me [NAME].\n\nRegards,\n[NAME]`);
});

test('a name the resume shows is removed from the short fields too, with no name field to tell it', () => {
  const row = { id: 'x', name: null, email: null, phone: null, headline: 'Senior Rust Engineer | Priya Raman', location: 'Priya Raman, Chennai', skills: ['Rust'] };
  const scrubbed = scrubRow({ ...row, resume: 'Priya Raman\nSenior Rust Engineer\nBuilt trading systems.' });
  assert.equal(scrubbed.scrubbedText, '[NAME]\nSenior Rust Engineer\nBuilt trading systems.');
  assert.equal(scrubbed.scrubbedHeadline, 'Senior Rust Engineer | [NAME]');
  assert.equal(scrubbed.scrubbedLocation, '[NAME], Chennai');
});

test('short fields guess no name: a location or a skill is no introduction', () => {
  assert.equal(scrub("I'm Sam Keller", { detectNames: false }), "I'm Sam Keller");
});

test('introduced names are idempotent: a scrubbed text scrubs to itself', () => {
  for (const [, input] of removed) {
    const once = scrub(HEADING + input);
    assert.equal(scrub(once), once, input);
  }
});

test("a first line that introduces its author is no header name: 'I'm' and 'Am' stay words of the text", () => {
  // The header rule took the whole line for the name, so "I'm" was removed wherever the text wrote it.
  assert.equal(
    scrub("I'm Sam Keller, backend engineer\nI'm happy to relocate. I'm in Berlin."),
    "I'm [NAME], backend engineer\nI'm happy to relocate. I'm in Berlin.",
  );
  assert.equal(scrub('I Am Sam Keller\nI Am a developer. Am I?'), 'I Am [NAME]\nI Am a developer. Am I?');
});

test('a degree after an introduced name is no part of it: it stays wherever the text writes it', () => {
  // Taken into the name, "PhD" was removed wherever capitalised ("I hold a [NAME]").
  assert.equal(scrub(`${HEADING}My name is Jane Doe PhD. I hold a PhD in physics.`), `${HEADING}My name is [NAME] PhD. I hold a PhD in physics.`);
  assert.equal(scrub(`${HEADING}Regards,\nJohn Smith Jr.\nJr. Developer at Acme`), `${HEADING}Regards,\n[NAME] Jr.\nJr. Developer at Acme`);
});
