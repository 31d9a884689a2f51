// Nicknames of given names: "Jon" and "Johnny" for Jonathan, "Liz" for Elizabeth. Part of the scrubber (scrub-names.ts):
// a resume often calls its author by a nickname the name field does not hold, or by the full name of the nickname it
// holds. The table is of common English given names and a few others; a nickname missing from it is not caught.

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

/**
 * The other names a given name is called by, lower-case: its nicknames ("jonathan": "jon", "johnny", ...) and, for a
 * nickname, the formal names it stands for ("liz": "elizabeth"). One step only: "Liz" does not give "Beth".
 */
export function otherGivenNames(name: string): string[] {
  const key = name.toLowerCase();
  return [...(NICKNAMES.get(key) ?? []), ...(FORMALS.get(key) ?? [])];
}
