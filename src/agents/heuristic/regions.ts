// Which country, and which state or province, a part of a place names: "Texas" and "TX" are the United States' Texas,
// "France" and "FR" France. Two-letter codes are read every way they can be ("CA": Canada, or California; "DE":
// Germany, or Delaware). Countries by ISO 3166-1 code; states and provinces of the countries whose addresses name them
// (the United States, Canada, Australia, India) and the United Kingdom's nations. A name not here is no region this
// table knows (places.ts then compares it only with other such names).

/** One reading of a region: a country, and in it a state or province when the part names one. */
export interface Region {
  readonly country: string;
  readonly state?: string;
}

// "CODE Name/Other name", separated by ";". A name is matched as placeTokens reads it (accents off, stemmed).
const COUNTRIES =
  'AE United Arab Emirates/UAE; AF Afghanistan; AL Albania; AM Armenia; AO Angola; AR Argentina; AT Austria; AU Australia; ' +
  'AZ Azerbaijan; BA Bosnia and Herzegovina/Bosnia; BD Bangladesh; BE Belgium; BG Bulgaria; BH Bahrain; BO Bolivia; ' +
  'BR Brazil/Brasil; BY Belarus; CA Canada; CH Switzerland/Schweiz/Suisse; CL Chile; CM Cameroon; CN China; CO Colombia; ' +
  'CR Costa Rica; CU Cuba; CY Cyprus; CZ Czech Republic/Czechia; DE Germany/Deutschland; DK Denmark; DO Dominican Republic; ' +
  'DZ Algeria; EC Ecuador; EE Estonia; EG Egypt; ES Spain/España; ET Ethiopia; FI Finland; FR France; ' +
  'GB United Kingdom/Great Britain/Britain; GE Georgia; GH Ghana; GR Greece; GT Guatemala; HK Hong Kong; HN Honduras; ' +
  'HR Croatia; HU Hungary; ID Indonesia; IE Ireland; IL Israel; IN India; IQ Iraq; IR Iran; IS Iceland; IT Italy/Italia; ' +
  'JM Jamaica; JO Jordan; JP Japan; KE Kenya; KH Cambodia; KR South Korea/Korea; KW Kuwait; KZ Kazakhstan; LB Lebanon; ' +
  'LK Sri Lanka; LT Lithuania; LU Luxembourg; LV Latvia; MA Morocco; MD Moldova; MK North Macedonia/Macedonia; ' +
  'MM Myanmar; MT Malta; MU Mauritius; MX Mexico/México; MY Malaysia; NG Nigeria; NL Netherlands/Holland/Nederland; ' +
  'NO Norway; NP Nepal; NZ New Zealand; OM Oman; PA Panama; PE Peru; PH Philippines; PK Pakistan; PL Poland/Polska; ' +
  'PR Puerto Rico; PT Portugal; PY Paraguay; QA Qatar; RO Romania; RS Serbia; RU Russia/Russian Federation; RW Rwanda; ' +
  'SA Saudi Arabia; SE Sweden; SG Singapore; SI Slovenia; SK Slovakia; SN Senegal; SV El Salvador; TH Thailand; ' +
  'TN Tunisia; TR Turkey/Türkiye; TW Taiwan; TZ Tanzania; UA Ukraine; UG Uganda; US United States/United States of America/USA/America; ' +
  'UY Uruguay; UZ Uzbekistan; VE Venezuela; VN Vietnam/Viet Nam; ZA South Africa; ZM Zambia; ZW Zimbabwe';

// "CODE Name" of each country's states; a code of "-" is a state known by its name only.
const STATES: Readonly<Record<string, string>> = {
  US:
    'AL Alabama; AK Alaska; AZ Arizona; AR Arkansas; CA California; CO Colorado; CT Connecticut; DE Delaware; ' +
    'DC District of Columbia; FL Florida; GA Georgia; HI Hawaii; ID Idaho; IL Illinois; IN Indiana; IA Iowa; KS Kansas; ' +
    'KY Kentucky; LA Louisiana; ME Maine; MD Maryland; MA Massachusetts; MI Michigan; MN Minnesota; MS Mississippi; ' +
    'MO Missouri; MT Montana; NE Nebraska; NV Nevada; NH New Hampshire; NJ New Jersey; NM New Mexico; NY New York; ' +
    'NC North Carolina; ND North Dakota; OH Ohio; OK Oklahoma; OR Oregon; PA Pennsylvania; RI Rhode Island; ' +
    'SC South Carolina; SD South Dakota; TN Tennessee; TX Texas; UT Utah; VT Vermont; VA Virginia; WA Washington; ' +
    'WV West Virginia; WI Wisconsin; WY Wyoming',
  CA:
    'AB Alberta; BC British Columbia; MB Manitoba; NB New Brunswick; NL Newfoundland and Labrador/Newfoundland; ' +
    'NS Nova Scotia; NT Northwest Territories; NU Nunavut; ON Ontario; PE Prince Edward Island; QC Quebec/Québec; ' +
    'SK Saskatchewan; YT Yukon',
  AU:
    'NSW New South Wales/NSW; VIC Victoria/VIC; QLD Queensland/QLD; WA Western Australia; SA South Australia; ' +
    'TAS Tasmania/TAS; ACT Australian Capital Territory/ACT; NT Northern Territory',
  IN:
    '- Andhra Pradesh; - Assam; - Bihar; - Chhattisgarh; - Delhi/New Delhi; - Goa; - Gujarat; - Haryana; ' +
    '- Himachal Pradesh; - Jharkhand; - Karnataka; - Kerala; - Madhya Pradesh; - Maharashtra; - Odisha/Orissa; ' +
    '- Punjab; - Rajasthan; - Tamil Nadu; - Telangana; - Uttar Pradesh; - Uttarakhand; - West Bengal; ' +
    '- Jammu and Kashmir/Kashmir',
  GB: '- England; - Scotland; - Wales; - Northern Ireland',
};

// Codes as addresses write them that are not ISO's.
const CODE_ALIASES: Readonly<Record<string, string>> = { uk: 'GB' };

interface Table {
  /** A two-letter code's readings, lower case: "ca" is Canada and California. */
  readonly byCode: ReadonlyMap<string, readonly Region[]>;
  /** A name's readings, keyed by its tokens joined with spaces. */
  readonly byName: ReadonlyMap<string, readonly Region[]>;
}

function entries(list: string): { code: string; names: string[] }[] {
  return list.split(';').map((entry) => {
    const [code, ...rest] = entry.trim().split(' ');
    return { code: code!, names: rest.join(' ').split('/') };
  });
}

function add(map: Map<string, Region[]>, key: string, region: Region): void {
  if (key === '') return;
  const readings = map.get(key) ?? [];
  if (!readings.some((r) => r.country === region.country && r.state === region.state)) readings.push(region);
  map.set(key, readings);
}

/** The table, its names read by `keyOf` (places.ts's tokens, so that "United States" is found however it is written). */
export function regionTable(keyOf: (name: string) => string): Table {
  const byCode = new Map<string, Region[]>();
  const byName = new Map<string, Region[]>();
  for (const { code, names } of entries(COUNTRIES)) {
    add(byCode, code.toLowerCase(), { country: code });
    for (const name of names) add(byName, keyOf(name), { country: code });
  }
  for (const [alias, country] of Object.entries(CODE_ALIASES)) add(byCode, alias, { country });
  for (const [country, list] of Object.entries(STATES)) {
    for (const { code, names } of entries(list)) {
      const state = code === '-' ? names[0]! : code;
      if (code.length === 2) add(byCode, code.toLowerCase(), { country, state });
      for (const name of names) add(byName, keyOf(name), { country, state });
    }
  }
  return { byCode, byName };
}
