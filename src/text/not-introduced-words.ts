// Words that follow an introduction's cues (introduced-names.ts) capitalised and are no name: greetings and sign-offs,
// function words, what a person says they are (adjectives, nationalities), days and months (not those that are names:
// May, June, April, August), organisations, the words that end a place's name ("Ocean Pines", "Boulder Creek"), and
// the words of headings a line might end in "here".
export const NOT_INTRODUCED: ReadonlySet<string> = new Set(
  ('hi hello hey dear greetings thanks thank regards sincerely yours truly faithfully respectfully cordially cheers best ' +
    'wishes warm kind signed a an the this that these those it its is am are was were be been not no yes also very so just ' +
    'now still currently here there then than as by from into about after before over only even ever never all any each ' +
    'every both some many much more most other such own same my your our their his her we you they he she me us them ' +
    'excited passionate proficient confident eager available familiar comfortable skilled experienced certified ' +
    'interested ready able happy keen open looking motivated dedicated hardworking reliable responsible organized organised ' +
    'creative fluent bilingual multilingual trilingual native capable committed enthusiastic flexible friendly honest ' +
    'independent knowledgeable loyal proactive punctual qualified talented versatile willing adaptable ambitious analytical ' +
    'curious diligent driven efficient energetic focused grateful thrilled delighted pleased certain sure glad based located ' +
    'living working applying writing reaching seeking graduating pursuing fresh recent former retired remote authorized ' +
    'authorised eligible licensed registered accredited trained fully highly adept good great strong quick fast solid top ' +
    'first done back detail oriented self well versed results team teams player players ' +
    'american british english canadian australian indian german french spanish italian dutch swedish norwegian danish ' +
    'finnish polish russian ukrainian chinese japanese korean vietnamese thai filipino indonesian malaysian singaporean ' +
    'pakistani bangladeshi nepali sri lankan irish scottish welsh mexican brazilian argentinian argentine colombian chilean ' +
    'peruvian nigerian kenyan egyptian african turkish greek portuguese israeli iranian arab arabic european asian latino ' +
    'latina hispanic swiss austrian belgian czech hungarian romanian bulgarian serbian croatian hindi urdu tamil telugu ' +
    'bengali marathi punjabi gujarati mandarin cantonese ' +
    'monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight january february march july ' +
    'september october november december ' +
    'inc ltd llc corp co gmbh ag plc labs lab studio studios partners consulting consultants ventures capital holdings media ' +
    'networks digital health healthcare agency foundation association society hospital clinic council ministry ' +
    'government department dept industries international global enterprises enterprise services service staff crew ' +
    'committee office recruiting recruitment talent hiring people everyone applicant candidate sir madam upon request ' +
    'provided furnished principal master member contributor volunteer mentor leader partner fellow city town county ' +
    'province region district island valley beach pines creek springs falls heights harbor harbour village township ' +
    'junction code samples sample demo demos details detail click more view live link ' +
    'links apply read see open source anytime directly list mailing discussion ecosystem community maintainer author ' +
    'contributor user desk helpdesk').split(' '),
);
