// The signer of a resume's declaration, as many resumes end: "I hereby declare that the above information is true ...",
// then a place, a date and the person's name, alone on a line or in a column of one, often in brackets ("(RAHUL
// SHARMA)"), or after a signature label ("Signature: Priya Patel"); and a signature label's name anywhere. Part of the
// scrubber's introduced names (introduced-names.ts), which decides whether each value found here reads as a name.

// "I hereby declare", "I do hereby solemnly declare", "I certify that", "We affirm", and a "DECLARATION" heading.
const DECLARATION_RE = /(?<![\p{L}])(?:I|We)[ \t]+(?:do[ \t]+)?(?:hereby[ \t]+)?(?:solemnly[ \t]+)?(?:declare|certify|affirm)(?![\p{L}])|^[ \t]*(?:self[ \t-])?declaration[ \t]*:?[ \t]*$/imu;
// A signature label and its value: "Signature: Priya Patel", "Signed by - Priya Patel", "Sign: (Priya Patel)".
const SIGNATURE_LABEL_RE = /(?<![\p{L}])(?:[Ss]ignature|SIGNATURE|[Ss]ign(?:ed)?(?:[ \t]+[Bb]y)?|SIGN(?:ED)?(?:[ \t]+BY)?)[ \t]*[:\-–—][ \t]*[([]?[ \t]*([^\n\t()[\]]{1,80})/gu;
/** How many lines after the declaration's start are read for its signer: the declaration, a place, a date, a name. */
const DECLARATION_LINES = 12;
// A column alone, in brackets or not, that may be a name ("(RAHUL SHARMA)", "Rahul Sharma"): letters, spaces, dots.
const BARE_CELL_RE = /^[([]?[ \t]*(\p{Lu}[\p{L}'’. -]{1,60}?)[ \t]*[)\]]?$/u;
// Columns of a line: a run of spaces or a tab, as a place or a date and the signer share one ("Date: 12/03/2020   (Rahul Sharma)").
const COLUMN_SPLIT = /\t|[ \t]{3,}/;

/**
 * The values that may be the text's signer: what a signature label names anywhere, and each column of a line alone after
 * a declaration that holds nothing but capitalised words (the caller checks that it reads as a name).
 */
export function declarationSigners(text: string): string[] {
  const values: string[] = [];
  if (/sign/i.test(text)) for (const m of text.matchAll(SIGNATURE_LABEL_RE)) values.push(m[1]!.trim());
  const declared = DECLARATION_RE.exec(text);
  if (declared === null) return values;
  const lines = text.slice(declared.index).split('\n', DECLARATION_LINES);
  // The declaration's own line is prose; the lines after it hold the place, the date and the signer.
  for (const line of lines.slice(1)) {
    for (const cell of line.split(COLUMN_SPLIT)) {
      const value = BARE_CELL_RE.exec(cell.trim())?.[1];
      if (value !== undefined && !/[.]$/.test(value)) values.push(value.trim());
    }
  }
  return values;
}
