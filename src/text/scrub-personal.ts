// Personal particulars after their labels, as a resume's "Personal details" section gives them: marital status,
// religion, caste, gender, nationality, ethnicity, age, health, disability, political views, family. None of them is a
// qualification, and a model that reads "Religion: Hindu" or "Marital Status: Married" may weigh it: the value becomes
// [PERSONAL]. Only after a label: "married the two systems" and "Hindi" are words. A relative's name is a name
// (scrub-names.ts, NAME_LABEL_RE); citizenship and a work permit ("Visa: H-1B") say where someone may work, and stay.

// English, German, French, Spanish, Portuguese, Italian, Dutch, Chinese, Japanese and Korean labels.
const LABEL =
  '(?:marital[ \\t]+status|civil[ \\t]+status|relationship[ \\t]+status|religion|religious[ \\t]+(?:affiliation|belief)|caste|sub[ \\t-]?caste' +
  '|gender|sex|sexual[ \\t]+orientation|pronouns|nationality|ethnicity|ethnic[ \\t]+(?:origin|group)|race|blood[ \\t]+(?:group|type)' +
  '|height|weight|health(?:[ \\t]+(?:status|condition))|medical[ \\t]+conditions?|disabilit(?:y|ies)|political[ \\t]+(?:affiliation|party|views)' +
  "|party[ \\t]+membership|(?:number[ \\t]+of[ \\t]+)?children|dependa?[ae]nts|(?:father|mother)['’]?s[ \\t]+(?:occupation|profession)" +
  '|place[ \\t]+of[ \\t]+birth|birth[ \\t]?place|native[ \\t]+place|mother[ \\t]+tongue|veteran[ \\t]+status|pregnancy' +
  '|familienstand|konfession|staatsangeh[oö]rigkeit|nationalit[äa]t|geschlecht|kinder|gewicht' +
  '|situation[ \\t]+familiale|[ée]tat[ \\t]+civil|nationalit[ée]|sexe|enfants|estado[ \\t]+civil|nacionalidade?|sexo|religi[oó]n|religi[aã]o' +
  '|hijos|filhos|stato[ \\t]+civile|nazionalit[àa]|sesso|burgerlijke[ \\t]+staat|nationaliteit|geslacht' +
  '|性别|性別|民族|婚姻状况|婚否|宗教(?:信仰)?|政治面貌|籍贯|身高|体重|健康状况|国籍|扶養家族|성별|국적|결혼[ \\t]*여부|혼인[ \\t]*여부|종교)';
// An age is a number ("Age: 32"): "Alter" and "Age" head other things too.
const AGE_LABEL = '(?:age|alter|[âa]ge|edad|idade|et[àa]|leeftijd|年龄|年齢|나이|연령)';
// At a line's start (after a bullet) or after a column's separator ("Gender: Female | Nationality: Indian"), with a
// colon or a dash standing for one ("Marital Status - Single"); after a comma, a semicolon or a gap of spaces, with a
// colon only ("Analytics, gender - pay gap study" is prose). Spaces are bounded, so that each position looks back a few
// characters only.
const LINE_OR_COLUMN = '(?:(?<=^[ \\t]{0,8}(?:[-•*·][ \\t]{0,3})?)|(?<=[|•·][ \\t]{0,3}))';
const IN_LINE = '(?:(?<=[;,][ \\t]{0,3})|(?<=[ \\t]{2}))';
const COLON = '[ \\t]{0,3}:[ \\t]{0,3}';
const COLON_OR_DASH = `(?:${COLON}|[ \\t]{1,3}[-–—][ \\t]{1,3}|[ \\t]{0,3}[–—][ \\t]{0,3})`;
// The value runs to its line's end, a column's separator, a gap of spaces, or a comma before another "Label:".
const VALUE = '([^\\n|•·;]{1,80}?)(?=[ \\t]*(?:$|[|•·;]|[ \\t]{2}|,[ \\t]*[\\p{L} ]{1,30}:))';
// One label, or two to four joined as forms write them ("Race/Ethnicity:", "Religion & Caste:").
const ANY_LABEL = `(?:${LABEL}|${AGE_LABEL})(?:[ \\t]{0,2}[/&][ \\t]{0,2}(?:${LABEL}|${AGE_LABEL})){0,3}`;
const PERSONAL_RE = new RegExp(`(?:${LINE_OR_COLUMN}((${ANY_LABEL})${COLON_OR_DASH})|${IN_LINE}((${ANY_LABEL})${COLON}))${VALUE}`, 'gimu');
// A cheap guard: a text with none of the labels' words skips the expression.
const HINT = new RegExp(`(?<![\\p{L}])(?:${LABEL}|${AGE_LABEL})(?![\\p{L}])`, 'iu');
const IS_AGE = new RegExp(`^${AGE_LABEL}$`, 'iu');
// Labels that also head a resume's own content ("Race - autonomous driving stack", "Disability: WCAG audits",
// "Dependents: Kubernetes, Helm"): after a dash they are a heading, and their value must look like a particular.
const AMBIGUOUS = /^(?:gender|sex|race|height|weight|health[ \t]+\S+|disabilit(?:y|ies)|(?:number[ \t]+of[ \t]+)?children|dependa?[ae]nts|kinder|gewicht|pregnancy)$/i;
// Those that are a count or a measure ("Children: 2", "Height: 5 ft 8 in", "Weight: 62 kg"), as an age is.
const COUNTED = /^(?:height|weight|(?:number[ \t]+of[ \t]+)?children|dependa?[ae]nts|kinder|gewicht)$/i;
const PLACE_LABEL = /^(?:place[ \t]+of[ \t]+birth|birth[ \t]?place|native[ \t]+place|籍贯)$/i;
const NUMBER_FIRST = /^(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|none|no\b|zero)/i;

// Pronouns a person gives without a label, in a header or a signature ("Jane Roe (she/her)", "he/him/his", "She/They"):
// they state a gender as plainly as "Gender: Female". "he/she" and "she/he" are prose's ("he/she will lead"), and stay.
const PRONOUNS_RE =
  /(?<![\p{L}/])(?:she|he|they|ze|xe|ey)[ \t]?\/[ \t]?(?:her|him|them|they|hir|zir|xem|em)(?:[ \t]?\/[ \t]?(?:hers|his|theirs|hirs|zirs|xyrs|eirs|them|they))?(?![\p{L}/])/giu;
const PRONOUNS_HINT = /(?:her|him|them|they|hir|zir|xem|em)(?!\p{L})/iu;

/** The text with each labelled personal particular, and each set of pronouns, replaced by [PERSONAL]. */
export function scrubPersonal(text: string): string {
  const out = text.includes('/') && PRONOUNS_HINT.test(text) ? text.replace(PRONOUNS_RE, '[PERSONAL]') : text;
  return HINT.test(out) ? labelled(out) : out;
}

function labelled(text: string): string {
  return text.replace(PERSONAL_RE, (all, lineLabel?: string, lineWord?: string, inLabel?: string, inWord?: string, value = '') => {
    const [label, word] = lineLabel !== undefined ? [lineLabel, lineWord!] : [inLabel!, inWord!];
    const v = value.trim();
    // A particular is a word or a few ("Married", "Hindu", "Female", "5 ft 8 in"); a longer value is prose or a skills
    // line under a heading that happens to match ("Health: built FHIR integrations for three clinics"), and a list or
    // an aside is content ("Children: ages 3-5, Montessori classroom", "Gender – Pay Gap Analysis (Python, pandas)"),
    // but for a place, which is written with commas ("Place of Birth: Lagos, Nigeria").
    const w = word.trim();
    if (v === '' || v.includes('[') || v.split(/\s+/).length > 6 || (PLACE_LABEL.test(w) ? /[();]/ : /[(),;]/).test(v)) return all;
    if (IS_AGE.test(w) && !/^\d/.test(v)) return all;
    if (AMBIGUOUS.test(w) && !label.includes(':')) return all;
    if (COUNTED.test(w) && !NUMBER_FIRST.test(v)) return all;
    return `${label}${value.replace(v, '[PERSONAL]')}`;
  });
}
