// Dates of birth and identity numbers, each after the label that says what it is: "Date of Birth: 12/05/1990",
// "DOB - 1990-05-12", "Born: May 12, 1990", "Passport No: A1234567", "PAN: ABCDE1234F", "SSN: 123-45-6789",
// "NI Number: AB 12 34 56 C". Without a label a date is a date (of a job, a degree) and a code is a code (a
// certification, a ticket): only the label makes them someone's.

const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const ORDINAL = '(?:st|nd|rd|th)?';
// French, Dutch, Italian, Spanish and Portuguese months ("12 avril 1992", "12 mei 1990", "12 de mayo de 1990").
const OTHER_MONTHS =
  'janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre|januari|februari|maart|mei|juni|juli|augustus|' +
  'gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|dicembre|enero|febrero|abril|mayo|junio|julio|septiembre|octubre|' +
  'noviembre|diciembre|janeiro|fevereiro|mar[çc]o|maio|junho|julho|setembro|outubro|novembro|dezembro';
// 12/05/1990, 12.05.90, 1990-05-12, 12 May 1990, 12th May, 1990, May 12, 1990, May 1990.
const DATE =
  `(?:\\d{1,4}[./\\-]\\d{1,2}[./\\-]\\d{1,4}` +
  `|\\d{1,2}${ORDINAL}[ \\t]+(?:of[ \\t]+)?(?:${MONTHS})\\.?,?[ \\t]+\\d{2,4}` +
  `|(?:${MONTHS})\\.?[ \\t]+(?:\\d{1,2}${ORDINAL},?[ \\t]+)?\\d{4}` +
  // 1993年4月12日, 1990年5月; 12 avril 1992 (French months).
  `|\\d{4}年\\d{1,2}月(?:\\d{1,2}日生?)?|\\d{4}년[ \\t]?\\d{1,2}월(?:[ \\t]?\\d{1,2}일)?` +
  // A year and a month alone after a birth label ("出生年月：1990.05").
  `|\\d{4}[./\\-]\\d{1,2}(?![./\\-]?\\d)` +
  `|\\d{1,2}(?:er)?[ \\t]+(?:de[ \\t]+)?(?:${OTHER_MONTHS})[ \\t]+(?:de[ \\t]+)?\\d{4}` +
  // A year alone after a birth label ("Year of birth: 1979", "DOB: 1979"): an age all the same.
  `|(?:19|20)\\d{2}(?![./\\-]?\\d))`;
// The label, and its colon or dash if it has one: a date follows it, which a label alone before a date is enough for
// ("Date of Birth 1990-05-12").
// "Birthday" needs its colon: "Birthday - May 2021 hackathon" is an event.
const BIRTH_LABEL =
  '(?:date[ \\t]+of[ \\t]+birth|birth[ \\t]*date|year[ \\t]+of[ \\t]+birth|birth[ \\t]+year|d\\.?[ \\t]?o\\.?[ \\t]?b\\.?|geburtsdatum|geboortedatum|date[ \\t]+de[ \\t]+naissance|fecha[ \\t]+de[ \\t]+nacimiento|data[ \\t]+di[ \\t]+nascita|data[ \\t]+de[ \\t]+nascimento|n[ée]e?[ \\t]+le|生年月日|생년월일|出生(?:年月|日期)?)[ \\t]*(?:[:：\\-–—][ \\t]*)?' +
  // One run of spaces on each side of the colon, so that a long run of spaces is read once (not split every way).
  '|birthday[ \\t]*:[ \\t]*|born(?:[ \\t]+on)?[ \\t]*(?:[:\\-–—][ \\t]*)?';
const BIRTH_RE = new RegExp(`(?<![\\p{L}])(${BIRTH_LABEL})(${DATE})(?![\\p{L}\\d])`, 'giu');

const NO = '(?:[ \\t]+(?:number|no\\.?|num\\.?|#))?';
const ID_LABEL =
  '(?:social[ \\t]+security|ssn|sin|passport|pan(?:[ \\t]+card)?|aadhaa?r(?:[ \\t]+card)?|national[ \\t]+insurance|ni|nino' +
  "|national[ \\t]+id(?:entity)?(?:[ \\t]+card)?|id[ \\t]+card|driv(?:ing|er['’]?s?)[ \\t]+licen[cs]e|tax[ \\t]+id|tin|voter[ \\t]+id" +
  // Other countries' ("CPF", "DNI", "NIE", "BSN", "NIN", "Steuer-ID", "Personalausweis", "Codice Fiscale"), and bank
  // and card numbers.
  '|cpf|dni|nie|bsn|nin|steuer[ \\t-]?id|personalausweis(?:nummer)?|codice[ \\t]+fiscale|iban|(?:credit|debit)[ \\t]+card' +
  // Licences and registrations ("License #: R 234567", "Medical License: 298765", "DEA: BH1234563", "GMC Number:
  // 7123456", "NPI: 1234567893"), and "ID No".
  "|(?:(?:medical|nursing|teaching|professional|practising|practicing)[ \\t]+)?licen[cs]e|dea|gmc|npi|emirates[ \\t]+id|tfn|id)";
// Groups as such numbers are written, spaces, dashes or dots between them: "A1234567", "123-45-6789", "AB 12 34 56 C",
// "1234 5678 9012", "ABCDE1234F", "123.456.789-09", "RSSMRA85T10A562S". A group holds a digit, or is one or two
// letters ("AB", "C").
const ID_GROUP = '(?:[A-Za-z]{0,6}\\d[A-Za-z0-9]{0,15}|[A-Za-z]{1,2})';
const ID_VALUE = `${ID_GROUP}(?:[ \\t\\-.]${ID_GROUP}){0,5}`;
// After the label its colon, a dash or "#", or only a space ("Passport Number X1234567"): the value must still look like
// an identity number (isIdNumber), and after a space alone the label must be one no sentence uses for something else
// (SPACED_LABEL, or "number"/"no" after any) and every group of the value must hold a digit: "credit card 2.0 in 12
// markets", "sin 100000 errores", "TIN 10 to 20 ms" and "Driver license 2019 to present" are prose.
const ID_RE = new RegExp(`(?<![\\p{L}])(${ID_LABEL})(${NO})([ \\t]*[:\\-–—#][ \\t]*|[ \\t]+)(${ID_VALUE})(?![\\p{L}\\d])`, 'giu');
const SPACED_LABEL = /^(?:social[ \t]+security|ssn|passport|aadhaa?r(?:[ \t]+card)?|national[ \t]+insurance|nino|cpf|dni|bsn|steuer[ \t-]?id|personalausweis(?:nummer)?|codice[ \t]+fiscale|iban)$/i;
// A card's number after its name and a space: 13 to 19 digits ("credit card 1200000 payments" is a count).
const CARD_LABEL = /^(?:credit|debit)[ \t]+card$/i;
const EVERY_GROUP_HAS_A_DIGIT = /^[A-Za-z]{0,6}\d[A-Za-z0-9]{0,15}(?:[ \t\-.][A-Za-z]{0,6}\d[A-Za-z0-9]{0,15})*$/;
// What an identity number has that a year, a span of years or a short code does not ("PAN - 2018", "TIN: 42",
// "Passport: 2015-2025"). A PAN is written one way (ABCDE1234F): "PAN: PA-5220" is a Palo Alto firewall.
const YEARS = /^(?:19|20)\d{2}(?:[ \t]*(?:[-–]|to)(?:[ \t]*(?:(?:19|20)\d{2}|present))?)?$/i;
const PAN = /^[A-Za-z]{5}\d{4}[A-Za-z]$/;
function isIdNumber(label: string, value: string): boolean {
  if (YEARS.test(value)) return false;
  if (/^pan(?![a-z])/i.test(label)) return PAN.test(value);
  return (value.match(/\d/g)?.length ?? 0) >= 3 && (value.match(/[A-Za-z0-9]/g)?.length ?? 0) >= 6;
}

// A cheap guard: a text in which no word starts as a label does skips both expressions ("company" and "using" do not).
// A licence's label ends in "licence" or "license", and "Emirates ID" holds "id": each is found by the word it ends in.
const HINT = /(?<!\p{L})(?:born|birth|d\.?[ \t]?o\.?[ \t]?b|geburt|geboorte|date[ \t]+de|fecha|data[ \t]+d|n[ée]e?[ \t]+le|ssn|sin|passport|pan|aadhaa?r|national|ni|id|driv|tax|tin|voter|social|cpf|dni|bsn|steuer|personalausweis|codice|iban|credit|debit|licen|dea|gmc|npi|tfn)|生年月日|생년월일|出生/iu;

/** The text with labelled dates of birth replaced by [BIRTHDATE] and labelled identity numbers by [ID]. */
export function scrubIdentity(text: string): string {
  if (!HINT.test(text)) return text;
  return text
    .replace(BIRTH_RE, (_all, label: string) => `${label}[BIRTHDATE]`)
    .replace(ID_RE, (all, label: string, no: string, separator: string, value: string) => {
      const spaced = /^[ \t]+$/.test(separator);
      const card = CARD_LABEL.test(label) && (value.match(/\d/g)?.length ?? 0) >= 13;
      if (spaced && !((no !== '' || SPACED_LABEL.test(label) || card) && EVERY_GROUP_HAS_A_DIGIT.test(value))) return all;
      return isIdNumber(label, value) ? `${label}${no}${separator}[ID]` : all;
    });
}
