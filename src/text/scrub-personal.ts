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
  '|familienstand|konfession|staatsangeh[oö]rigkeit|nationalit[äa]t|geschlecht|kinder|gr[öo](?:ß|ss)e|gewicht' +
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
const ANY_LABEL = `${LABEL}|${AGE_LABEL}`;
const PERSONAL_RE = new RegExp(`(?:${LINE_OR_COLUMN}((${ANY_LABEL})${COLON_OR_DASH})|${IN_LINE}((${ANY_LABEL})${COLON}))${VALUE}`, 'gimu');
// A cheap guard: a text with none of the labels' words skips the expression.
const HINT = new RegExp(`(?<![\\p{L}])(?:${LABEL}|${AGE_LABEL})(?![\\p{L}])`, 'iu');
const IS_AGE = new RegExp(`^${AGE_LABEL}$`, 'iu');

/** The text with each labelled personal particular replaced by [PERSONAL]. */
export function scrubPersonal(text: string): string {
  if (!HINT.test(text)) return text;
  return text.replace(PERSONAL_RE, (all, lineLabel?: string, lineWord?: string, inLabel?: string, inWord?: string, value = '') => {
    const [label, word] = lineLabel !== undefined ? [lineLabel, lineWord!] : [inLabel!, inWord!];
    const v = value.trim();
    // A particular is a word or a few ("Married", "Hindu", "Female", "5 ft 8 in", "2 (ages 4 and 7)"); a longer value is
    // prose or a skills line under a heading that happens to match ("Health: built FHIR integrations for three clinics").
    if (v === '' || v.includes('[') || v.split(/\s+/).length > 6) return all;
    if (IS_AGE.test(word.trim()) && !/^\d/.test(v)) return all;
    return `${label}${value.replace(v, '[PERSONAL]')}`;
  });
}
