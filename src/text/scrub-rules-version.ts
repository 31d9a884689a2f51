// The scrubber's rules version and what each version changed (scrubber.ts and its modules). Kept apart from the rules
// themselves: it is read by everything that stores or filters scrubbed copies (candidates, retrieval, reembed).
/**
 * The version of these rules. Stored scrubbed copies (candidates.scrub_version) older than this are scrubbed
 * again from the raw fields: bump it whenever a change here, or in what is stored from the scrubbed copies, should
 * reach rows already stored. A stale row matches no location or skill filter: it is rewritten first (rescrub.ts).
 * 2: skill_keys are made from the scrubbed skills, not the raw ones.
 * 3: spaced-out and bracketed emails ("jane . doe @ gmail . com", "[@]", "[.]"); phones written with other dashes or
 *    dots ("555—123—4567", "03・1234・5678") or followed by a comma; personal sites on bare domains ("janedoe.dev");
 *    handles after "GitHub ID:" and its like.
 * 4: a typographic dash between two numbers that reads as a range ("1200–1500 ms", "40 000–50 000") is no phone
 *    separator, as it was not before 3; a bare domain is a column of a contact line only if the line is one (short
 *    columns, no other domain) and it stands beside a contact detail or at an end of the line; a spaced full stop
 *    after an address ends it at its first TLD ("jane . doe @ gmail . com . Thanks" was left whole) and one before a
 *    tight address is punctuation ("Go . Kafka . jane@x.com"); a GitHub, GitLab, Bitbucket or LinkedIn handle inside a
 *    line ("GitHub ID: janesmith456 | Email: ...").
 * 5: e-mails with a bare "at" off a mail host after an identifier, an e-mail or contact label or as a whole column
 *    ("jane.doe at acme.com", "Contact: janedoe at acme.com"), and with "-at-", "_at_", "-dot-", "_dot_"; two phones
 *    joined by a slash ("555-123-4567 / 555-987-6543" leaked whole); an ASCII-hyphen range with a money, unit or hours
 *    word or of round numbers is no phone ("Expected 120000-150000", "office hours 0900-1700"); a lower-case bare
 *    domain after "see", "visit", "check out" or a site word is a personal site ("see jane.io").
 * 6: a bare "at" after words that hand over an address ("write to janedoe at acme.com", "email me at ...", "reach me:
 *    ..."), but not after a dotted job title ("team.lead at acme.com") or a skill ("Email marketing at acme.com"); a
 *    lower-case bare domain under a personal top level (.dev, .me, .page, .site, .blog, .cv, ...) is a personal site
 *    wherever it stands ("demos on janedoe.dev"), and a well-known company's is none even after a cue ("see
 *    google.com"); a phone of a range's shape is a phone with a phone word after it ("1200-3400 (mobile)"), a request
 *    to call further back in its sentence ("call me any time after six on 1200-3400"), a one-letter label ("M:"),
 *    "Fax", "Cel" or "Telephone number is" before it, listed after another ("call 1200-3400 or 1300-4500"), or as a
 *    column of a contact line ("Austin | 1200-3400 | [EMAIL]"); a phone noun followed by prose announces none
 *    ("mobile apps to 1200-1500 users"); clock times after "contact hours" are hours; a label ends no other word
 *    ("graph 1200-1500", "Hotel 1234567").
 * 7: an address before a bare "at", a bare domain or a code-hosting handle inside a line that spells the known or shown
 *    name ("janedoe at acme.com", "JaneDoe at acme.com", "doej.io", "GitHub: janedoe | ..."); a name part that is a
 *    skill, a well-known site's name or a common word spells nothing alone, and a skill part or a well-known domain is
 *    kept when met alone ("Go" and "go.dev" for Mark Go, "apple.com" for Jane Apple); a whole name keeps its
 *    particles ("Anh Le" was "[NAME] Le").
 * 8: a middle name or initial between the known or shown first and last name, which the name field or the header left
 *    out ("Marie" in "Jane Marie Doe" for Jane Doe, then alone; "Jane M. Doe" and "J. Doe" as one [NAME]); nicknames of a
 *    known or shown given name and the full name of a nickname ("Jon", "Johnny" for Jonathan, "Elizabeth" for Liz; one
 *    that is a word, "Bill", only beside the surname); a skill surname after a title or the first initial ("Ms. Swift",
 *    "T. Swift"); a handle with its platform after it or handed over ("@janedoe on Twitter", "follow me @janedoe") and
 *    "@user@host" fediverse handles. Kept now: a surname that is a word written in lower case ("young engineers" for Jane
 *    Young); an employer's domain after a job title or employment verb, or one the text names its organisation by
 *    ("Senior Engineer at acme.dev", "Acme Labs (acmelabs.dev)"); a platform after "find me on"; an institution's domain
 *    ("ox.ac.uk", "stanford.edu"); a count after "call", "contact", "reach" or "ring" used as a noun ("call volumes of
 *    1200-1500").
 * 9: a name the text introduces, with no name field and no header or "Name:" line to show it ("My name is Sam Keller",
 *    "I'm Sam Keller, a ...", "Hi, I'm Sam", "colleagues call me ...", "Sam Keller here —", "This is ...", "Regards,\nSam
 *    Keller", "signed, ...", "— Sam Keller" ending the text, "Contact: Sam Keller", "Referee: Dr. Jane Smith, Acme",
 *    "References: John Doe (manager)"), removed wherever the text writes it (introduced-names.ts); at most 8 middle names
 *    are taken from a text.
 * 10: an introduced name in capitals ("MY NAME IS JOHN SMITH", "Regards,\nJOHN SMITH", "I'm Jean DUPONT"; one word in
 *    capitals alone is an acronym and stays); generations and degrees after a name ("Jane Doe MBA and ...", "John Smith
 *    Jr.", "Jane Roe, Ph.D., PMP") and an honorific before a header's are no part of it: they stay in the text, and a
 *    two-letter degree after a contact is one ("Contact: Sam Keller, MD"), no state; referees on the lines under a
 *    references heading ("References\nJane Roe, Acme Corp\n[PHONE]"), and every one on a references line; a header's
 *    or an introduced name whose surname is a skill, after a common given name ("Tom Swift", "Ann Go", "Maria Python";
 *    the skill alone stays). Kept now: a listed place of two or more words after those cues or as a header ("Contact:
 *    Palo Alto", "Palo Alto | [EMAIL]"; place-names.ts).
 * 11: a referee inside another's entry under a references heading, after a title or a common given name ("Acme —
 *    reports to John Smith", "John Doe" on a line of its own under another's title) or as the next of a list ("Jane Doe
 *    (Acme), Xiaoming Zhang (Globex)", "...; Dr. Okafor"), on a label's line too; the name after an employer starting an
 *    entry ("Goldman Sachs – Jane Doe, CTO"), the employer kept; a name before two capitals of a title ("Jane Roe, VP
 *    Engineering"); headings "REFERENCES AVAILABLE", "Personal Referees -", "Character References". Kept now: an
 *    employer before a referee's name; what follows a line saying references are given on request (as a heading it
 *    starts no section, under one it ends it); a place whose last word is a place's ("Ocean Pines, MD", "Boulder
 *    Creek").
 * 12: a closing bracket ends the name of a referee a relation or a title introduces inside another's entry ("Jane Roe
 *    (reports to John Smith)"); a name alone in brackets after a title is still its employer's ("Senior Engineer
 *    (Charles Schwab)").
 * 13: a person a label names right after an opening bracket, which ends the name when it closes: a contact or a referee
 *    ("Acme (Contact: Jane Roe)", "[Referee: Mark Lee]"), and, only there, a manager, a supervisor ("Jane Roe (manager:
 *    John Smith)", "(supervisor: John Smith, CTO)") or a ref with a title or a common given name ("(ref: John Smith)";
 *    "(ref: Annual Report)" stays). Kept: what a label naming no person introduces in brackets ("(Stack: Node,
 *    Postgres)", "(Skills: Python, Go)"), and a title ending in Manager before its employer ("Engineering Manager:
 *    Stripe Atlas").
 * 14: in such brackets, a relation with a colon before a title or a common given name ("Jane Roe (reports to: John
 *    Smith)", "(reporting to: Dr. Jane Roe)"), and each further person with a title or a common given name ("(ref: John
 *    Smith, Jane Doe)", "(manager: John Smith; peer: Jane Roe)"). Kept: an employer, a title or a stack after the person
 *    ("(Contact: Jane Roe, Acme Corp)", "(manager: John Smith, CTO)", "(ref: John Smith, Goldman Sachs; Berlin)": a
 *    ref's or a reporting manager's line lists no referees, as a references label's does), a role after a relation
 *    ("(reports to: Head of Data)").
 * 15: in such brackets, a person only "and", "&" or "/" separates from the next ("(ref: John Smith and Jane Doe)",
 *    "(supervisor: Mark Lee / Ann Chen)"); a lead, an advisor, a mentor, a sponsor, a coach or a PI there, and any of
 *    these labels with a spaced dash for its colon, before a title or a common given name ("(lead: John Smith)",
 *    "(advisor: Prof. Jane Roe)", "(Manager – John Smith)"); a manager, supervisor or reports-to label alone at a line's
 *    start before a title or a common given name ("Manager: John Smith"). Kept: a team, an employer or a role there
 *    ("(lead: Platform Team)", "(Manager – Payments)", "Manager: Stripe Atlas"), a hyphenated word ("(Manager-led
 *    squad)").
 * 16: in brackets, a manager or supervisor whose kind the label says ("(hiring manager: Jane Roe)", "(Engineering
 *    Manager: Dr. Jane Roe)"), a reviewer, a director, a recruiter, a boss or a principal investigator ("(reviewer: Jane
 *    Roe)"), and a contact label a word or two into them ("(client contact: John Smith)"); at a line's start, any
 *    relation's label alone ("Lead: Jane Roe", "Director: Jane Roe"); each before a title or a common given name but
 *    the contact's. Kept: a product, a team or a place there ("(Product Manager: Payments App)", "(Sales contact:
 *    Berlin Office)", "Lead: Platform Migration", "(Director: Engineering)").
 * 17: in brackets, an editor ("(editor: Jane Roe)"), and any of their labels after "my" or "our" ("(my boss: John
 *    Smith)", "(our lead: Dr. Jane Roe)"), each needing what the label alone needs. Kept: a journal or a team there
 *    ("(editor: Nature Reviews)", "(my lead: Platform Team)"), an editor at a line's start ("Editor: VS Code"). And
 *    every label is read in a text with no other cue word ("(interviewer: Jane Roe)", "(supervised by: Jane Roe)"
 *    alone were skipped).
 * 18: a date of birth after its label ("Date of Birth: 12/05/1990", "DOB - 1990-05-12", "Born: May 12, 1990", "born on
 *    12th May 1990") as [BIRTHDATE], an identity number after its label ("SSN: 123-45-6789", "Passport No: A1234567",
 *    "PAN: ABCDE1234F", "NI Number: AB 12 34 56 C", "SIN", "Aadhaar", a national or voter id, a driving licence, a tax
 *    id) as [ID] (scrub-identity.ts); a relative's name after its label ("Father's Name: ...", "Spouse's name: ...").
 *    Kept: a date or a code without such a label, a year alone ("Born in 1990"), a value too short for an id ("TIN: 42").
 *    And a first line of capitalised words is no header name in a resume with its own "Name:" line: a banner ("Power
 *    BI | SQL", "Wells Fargo") keeps its words, which were removed wherever capitalised.
 * 19: a header name after a heading on its line ("Resume of Jane Roe", "CV - Jane Roe", "Curriculum Vitae: ...", "Biodata
 *    of ..."); a declaration's signer ("I hereby declare that ...", then "(Rahul Sharma)" on a line or in a column of
 *    one after the place and the date) and a signature label's name ("Signature: Priya Patel"), two words at least
 *    (signed-declarations.ts); a labelled handle written as a link on a bare host ("Telegram: t.me/janedoe" kept
 *    "/janedoe"), a Skype "live:" id and a Discord tag ("jane#1234"). Kept: a job title after such a heading ("Resume -
 *    Senior Data Engineer"), skills and places on the lines after a declaration.
 * 20: invisible characters (soft hyphens, zero-width spaces and joiners, bidirectional marks) are removed first:
 *    "Ja\u00ADne" hid a name and "ja\u200Bne@x.com" an address; an em dash separates every label from its value ("Name —
 *    Jane Roe", "GitHub — janeroe99", "Date of birth — 12/05/1990") and a header's name from its title; a Markdown
 *    heading's marks or emphasis around a header's name ("# Jane Roe", "**Jane Roe** | Engineer"); a known name in a
 *    script written without spaces inside running text ("我叫王伟，", "김민준입니다"); a date of birth after its label
 *    without a colon or after "Birthday"; an identity number after its label and a space ("Passport Number X1234567"),
 *    with dots in it ("CPF: 123.456.789-09"), and after "Driver license", "CPF", "DNI", "NIE", "BSN", "NIN",
 *    "Steuer-ID", "Personalausweis", "Codice Fiscale", "IBAN", "Credit card"; and the names a resume shows are removed
 *    from the candidate's headline, location and skills too (scrubShowing).
 * 21: a known name is read without its invisible characters, as the text is ("حسین\u200Cزاده"); in Chinese, Japanese
 *    and Korean only a whole name is found inside words, a part alone before a particle ("山田は"), Thai names as words;
 *    after a dash a handle starts with a letter or "@" ("GitHub — 2019–2023" is an employer's years); after a space
 *    alone an id's label is one prose does not use ("credit card 2.0", "sin 100000" stay) and its groups hold digits;
 *    "Birthday" needs its colon; a signer is read among the last lines only, one per declaration and not past the next
 *    section's heading, and a signature label at a line's start; after "Resume –" a field is no name, and the name
 *    may be on the next line; an initial is never a skill ("Emily R. Thompson"); more degrees (MBBS, MRCP, ACCA, ...)
 *    and titles (Engr., Rev.); a street needs a name between its number and its type ("2021   Square").
 * 22: addresses after more labels ("Present Address:", "Address for Communication:", "Anschrift:", "Dirección:",
 *    "住所:"); licences and registrations after their labels ("License #:", "Medical License:", "DEA:", "GMC Number:",
 *    "NPI:", "ID No:"); dates of birth after other languages' labels ("Née le 12 avril 1992", "Geboortedatum:",
 *    "生年月日 1993年4月12日", "생년월일:", "出生年月:"); a Markdown link's text that spells its link ("[mayapatel.design](...)");
 *    a header name under a "Lebenslauf" or "Biodata" heading.
 * 23: after a job title or a Markdown heading the next line is no header name ("# Senior Engineer\nWells Fargo"); a
 *    declaration signs only when it is among the last lines ("I certify SOC 2 controls" further up signs nothing); a
 *    Markdown link's text goes only when it is a site or a handle ("[Next.js](...)" stays); birth dates as Korean,
 *    Chinese and other languages write them ("1993년 4월 12일", "1990.05", "12 de mayo de 1990"); "Indirizzo" and
 *    "Dirección" need a digit to be an address; a span of years ("2019 to present") is no licence; a handle has a letter.
 * 24: personal particulars after their labels as [PERSONAL] (scrub-personal.ts): marital status, religion, caste,
 *    gender, pronouns, nationality, ethnicity, an age that is a number, height, weight, health, disability, political
 *    views, children, in English and nine other languages ("Familienstand:", "Estado civil:", "性别:", "婚姻状况:"); a
 *    name after other languages' labels ("Nombre:", "Nom :", "Vorname:", "姓名:", "氏名:", "이름:"), after "Name of the
 *    candidate:", and a spouse's ("Spouse: John Roe"). Kept: citizenship and work permits ("Visa: H-1B"), the same words
 *    in prose ("gender - pay gap study"), and a value too long for a particular.
 * 25: a year alone after a birth label ("Year of birth: 1979", "DOB: 1979", "born 1990"); joined labels ("Race/Ethnicity:",
 *    "Religion & Caste:"); a place of birth, a native place, a mother tongue, a veteran status and a pregnancy after
 *    their labels. Kept: "Born in 1990" in prose, a span of years ("2015-2019"); a value that is a list or holds an
 *    aside ("Children: ages 3-5, Montessori classroom", "Gender – Pay Gap Analysis (Python, pandas)"); a label that also
 *    heads content after a dash ("Race - autonomous driving stack"), a count or a measure that is no number
 *    ("Dependents: Kubernetes"); and a role's text, whose "Weight: able to lift 25 kg" is a requirement.
 * 26: pronouns without a label ("Jane Roe (she/her)", "He/Him/His", "they/them") as [PERSONAL]; a header name with an
 *    aside in brackets after it ("Jane Roe (she/her)" was no name, and reached the model whole), the aside's common
 *    given name as a nickname ("Katherine Roe (Kate)"); a header name spelled letter by letter ("J A N E   R O E").
 *    Kept: prose's "he/she", an aside that is no given name ("(Remote)"), a role's text, and a first line that is a
 *    job title in German, French, Spanish, Portuguese or Italian ("Softwareentwickler München", "Développeur Java"),
 *    whose words were removed as a name wherever the resume wrote them (its city with them).
 */
export const SCRUB_RULES_VERSION = 26;
