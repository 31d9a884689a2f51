// Places of two or more words that a resume writes where a name may stand ("Contact: Palo Alto", a header "Palo Alto |
// [EMAIL]"), and that read as a person's name, as no word of them is a heading, a title or a place word the name rules
// know ("City", "Valley", "San", "New"). Part of the scrubber (scrub-names.ts, introduced-names.ts). The list is short on
// purpose: a place missing from it is taken for a person only after those cues, or as a resume's first line.
const PLACES = new Set(
  (
    // Where software is made: the Bay Area, other American hubs, and the states and countries of two words.
    'palo alto,mountain view,menlo park,redwood city,santa clara,santa monica,santa barbara,santa cruz,santa rosa,santa ana,' +
    'santa fe,san francisco,san jose,san diego,san antonio,san mateo,san ramon,los angeles,los gatos,los altos,las vegas,' +
    'walnut creek,foster city,culver city,beverly hills,newport beach,long beach,el segundo,el paso,new york,new jersey,' +
    'new orleans,new haven,long island,jersey city,salt lake city,kansas city,oklahoma city,fort worth,fort lauderdale,' +
    'fort collins,st louis,st paul,saint louis,saint paul,baton rouge,des moines,grand rapids,cedar rapids,little rock,' +
    'round rock,ann arbor,boca raton,palm beach,palm springs,colorado springs,virginia beach,silver spring,college park,' +
    'chapel hill,cherry hill,research triangle,silicon valley,bay area,north carolina,south carolina,north dakota,' +
    'south dakota,west virginia,rhode island,new mexico,new hampshire,united states,united kingdom,' +
    // Elsewhere.
    'mexico city,panama city,san juan,santo domingo,costa rica,puerto rico,buenos aires,rio de janeiro,sao paulo,' +
    'são paulo,tel aviv,abu dhabi,hong kong,kuala lumpur,ho chi minh city,phnom penh,new delhi,navi mumbai,greater noida,' +
    'sri lanka,cape town,addis ababa,dar es salaam,south africa,south korea,saudi arabia,new zealand,gold coast,' +
    'milton keynes,den haag,the hague,frankfurt am main,st petersburg,saint petersburg,czech republic'
  ).split(','),
);

/** Whether the words ("Palo Alto", "St. Louis") are a listed place. */
export const isPlaceName = (value: string): boolean => PLACES.has(value.toLowerCase().replace(/\./g, '').trim().split(/[ \t]+/).join(' '));
