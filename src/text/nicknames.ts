// Nicknames of given names: "Jon" and "Johnny" for Jonathan, "Liz" for Elizabeth. Part of the scrubber (scrub-names.ts):
// a resume often calls its author by a nickname the name field does not hold, or by the full name of the nickname it
// holds. The table is of common English given names and a few others; a nickname missing from it is not caught. Its
// names and a list of others also tell a given name (isGivenName).

// formal name: its nicknames. A nickname of several formal names is listed under each ("Alex", "Chris", "Sam").
const TABLE =
  'abigail:abby,abbie,gail alexander:alex,alec,sandy,sasha,xander alexandra:alex,sandra,sasha,lexi alfred:alf,alfie,fred ' +
  'andrew:andy,drew amanda:mandy,manda anthony:tony antonio:tony,toni arthur:art,artie barbara:barb,babs benjamin:ben,benji,benny ' +
  'bernard:bernie beatrice:bea,trixie bradley:brad catherine:cathy,cat,kate,katie,kat caroline:carrie,caro charles:charlie,chuck,chas ' +
  'charlotte:charlie,lottie christina:chris,tina,christy christine:chris,tina,christy christopher:chris,kit,topher cynthia:cindy ' +
  'daniel:dan,danny deborah:deb,debbie,debby dennis:denny donald:don,donnie dorothy:dot,dottie douglas:doug edward:ed,eddie,ted,ned ' +
  'eleanor:ellie,nora,nell elizabeth:liz,lizzie,lizzy,beth,betty,betsy,eliza,liza,libby,elise emily:em,emmy eugene:gene ' +
  'frances:fran,frankie francis:frank,frankie,fran frederick:fred,freddie,freddy gabriel:gabe gabriella:gabby,ella gregory:greg ' +
  'harold:harry,hal henry:harry,hank isabella:bella,izzy,isa isabel:izzy,bella jacob:jake,jakey james:jim,jimmy,jamie jennifer:jen,jenny,jenn ' +
  'jessica:jess,jessie joanna:jo,jojo john:johnny,jack,jon jonathan:jon,jonny,johnny,jonnie joseph:joe,joey josephine:jo,josie ' +
  'joshua:josh judith:judy katherine:kate,katie,kathy,kat,kay kathleen:kathy,kate,katie kenneth:ken,kenny lawrence:larry,laurie ' +
  'leonard:leo,len,lenny louis:lou,louie louise:lou,lulu margaret:maggie,meg,peggy,peg,marge,greta madeline:maddie,maddy ' +
  'matthew:matt,matty michael:mike,mikey,mick,mickey michelle:shelly,michy nathaniel:nat,nate,nathan nathan:nate nicholas:nick,nicky,nico ' +
  'nicole:nikki,nicky,nic oliver:ollie olivia:liv,livvy,ollie patricia:pat,patty,trish,tricia patrick:pat,paddy,rick ' +
  'pamela:pam peter:pete penelope:penny,nell philip:phil phillip:phil rebecca:becky,becca,bex richard:rick,ricky,rich,dick,richie ' +
  'robert:rob,robbie,bob,bobby,bert roberta:bobbie,robbie ronald:ron,ronnie rosemary:rosie,rose samantha:sam,sammy samuel:sam,sammy ' +
  'sandra:sandy susan:sue,suzy,susie suzanne:sue,suzy stephanie:steph,stevie stephen:steve,stevie steven:steve,stevie ' +
  'theodore:theo,ted,teddy thomas:tom,tommy timothy:tim,timmy valerie:val victoria:vicky,tori,vic vincent:vince,vinny ' +
  'virginia:ginny walter:walt,wally william:will,bill,billy,willy,liam zachary:zach,zack ' +
  'aleksandr:sasha,sanya aleksei:alyosha,lyosha dmitri:dima ekaterina:katya,katia mikhail:misha yekaterina:katya ' +
  'francisco:paco,pancho,cisco jose:pepe,chepe guillermo:memo,guille roberto:beto alejandro:alex,ale giuseppe:beppe,peppe,pino ' +
  'giovanni:gianni,vanni muhammad:mo mohammed:mo mohammad:mo johannes:hannes,jan,johann';

// Nicknames that are also words, products or abbreviations ("Pat", "Sue", "Ted", "NAT", "Memo"): such a nickname is
// removed only where it stands with the surname ("Pat Chen"), as the scrubber's other word-like names (scrub-names.ts).
const WORD_NICKNAMES = new Set(
  'pat sue rob sandy dot peg kit cat nat bert chuck dick ed ted hal val vic bea gene fred hank isa nic pam deb drew em jo ale cisco memo mo barb gail nell kay liv patty paddy marge pino gabby'.split(' '),
);

/** Whether the nickname (lower-case) is a word as well: it is removed only beside the surname. */
export const isWordNickname = (nick: string): boolean => WORD_NICKNAMES.has(nick);

const NICKNAMES = new Map<string, string[]>();
const FORMALS = new Map<string, string[]>();
for (const entry of TABLE.split(' ')) {
  const [formal, list] = entry.split(':') as [string, string];
  NICKNAMES.set(formal, list.split(','));
  for (const nick of list.split(',')) FORMALS.set(nick, [...(FORMALS.get(nick) ?? []), formal]);
}

// Given names beyond the table's, common in many languages: a word that follows one of these (or one of the table's) in
// a name is a surname even when it is a skill ("Tom Swift", "Ann Go", "Maria Python"; scrub-names.ts).
const OTHER_GIVEN_NAMES = new Set(
  ('aaron adam adrian ahmed aisha akira alan albert alice alicia amir amit amy ana andrea andreas angela anil anita ann anna ' +
    'anne anton arjun ashley aya bianca boris brian bruno carla carlos carmen chen chloe claire clara daniela david deepak ' +
    'diana diego dimitri elena elif emma eric erik eva fatima felix fernando fiona george grace hana hannah hans hassan ' +
    'helen hiroshi hugo ian igor ingrid irene ivan jane jason javier jean jin joan jorge juan julia julian karen karim karl ' +
    'kenji kevin kim kiran klaus lars laura lea leila lena lina linda lisa luca lucas lucia luis lukas maria marie marco ' +
    'mark marta martin mary maya mei mia michel miguel mina ming mohamed nadia naomi neha nina noah omar oscar pablo paolo ' +
    'paul pedro pierre pooja priya rachel rahul raj ravi rosa rose ruth ryan sara sarah sean sergei simon sofia sophie ' +
    'stefan sunil sven tanya tara tomas uma vera victor vijay wei yan yuki yusuf zara zoe').split(' '),
);

/** Whether the word (any case) is a common given name: the table's, formal or nickname, or one of the others above. */
export function isGivenName(word: string): boolean {
  const key = word.toLowerCase();
  return NICKNAMES.has(key) || FORMALS.has(key) || OTHER_GIVEN_NAMES.has(key);
}

/**
 * The other names a given name is called by, lower-case: its nicknames ("jonathan": "jon", "johnny", ...) and, for a
 * nickname, the formal names it stands for ("liz": "elizabeth"). One step only: "Liz" does not give "Beth".
 */
export function otherGivenNames(name: string): string[] {
  const key = name.toLowerCase();
  return [...(NICKNAMES.get(key) ?? []), ...(FORMALS.get(key) ?? [])];
}
