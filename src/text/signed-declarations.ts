// The signer of a resume's declaration, as many resumes end: "I hereby declare that the above information is true ...",
// then a place, a date and the person's name, alone on a line or in a column of one, often in brackets ("(RAHUL
// SHARMA)"), or after a signature label ("Signature: Priya Patel"). Part of the scrubber's introduced names
// (introduced-names.ts), which decides whether each value found here reads as a name.
//
// Only a text's last lines are read: a declaration and its signature end a resume, and a label or a line of two
// capitalised words elsewhere is a skill ("Digital Signature: Elliptic Curve"), a product or an employer.

// "I hereby declare", "I do hereby solemnly declare", "I certify that", "We affirm".
const DECLARATION_RE = /(?<![\p{L}])(?:I|We)[ \t]+(?:do[ \t]+)?(?:hereby[ \t]+)?(?:solemnly[ \t]+)?(?:declare|certify|affirm)(?![\p{L}])/iu;
// A signature label at the start of a line or a column and its value: "Signature: Priya Patel", "Signed by - Priya
// Patel", "Sign: (Priya Patel)".
const SIGNATURE_LABEL_RE = /^[([]?[ \t]*(?:[Ss]ignature|SIGNATURE|[Ss]ign(?:ed)?(?:[ \t]+[Bb]y)?|SIGN(?:ED)?(?:[ \t]+BY)?)[ \t]*[:\-–—][ \t]*[([]?[ \t]*([^\n\t()[\]]{1,80})/u;
/** How many of the text's last lines with letters are read: a declaration's end, a place, a date and the signer. */
const TAIL_LINES = 8;
// A column alone, in brackets or not, that may be a name ("(RAHUL SHARMA)", "Rahul Sharma"): letters, spaces, dots.
const BARE_CELL_RE = /^[([]?[ \t]*(\p{Lu}[\p{L}'’. -]{1,60}?)[ \t]*[)\]]?$/u;
// A section's heading ("TECHNICAL SKILLS", "Hobbies:", "## Languages Known").
const SECTION_HEADING =
  /^[ \t]*[#*]*[ \t]*(?:(?:technical|key|core|personal|professional|academic|extra[ -]?curricular|work|other)[ \t]+)?(?:skills?|hobbies|interests|experience|education|projects?|certifications?|languages(?:[ \t]+known)?|details|strengths|achievements|references|summary|profile|objective|training|internships?|activities|qualifications|employment|career)(?![\p{L}])[^\n]{0,30}$/iu;
// Columns of a line: a run of spaces or a tab, as a place or a date and the signer share one ("Date: 12/03/2020   (Rahul Sharma)").
const COLUMN_SPLIT = /\t|[ \t]{3,}/;

/** The text's last lines with letters, at most TAIL_LINES, with the offset the first of them starts at. */
function tail(text: string): { lines: string[]; from: number } {
  const lines: string[] = [];
  let end = text.length;
  let from = end;
  while (end > 0 && lines.length < TAIL_LINES) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    if (/\p{L}/u.test(line)) {
      lines.unshift(line);
      from = start;
    }
    end = start - 1;
  }
  return { lines, from };
}

/**
 * The values that may be the text's signer, among its last lines: what a signature label names, and, after a
 * declaration, the columns of lines that hold nothing but capitalised words, nearest the end first (the caller checks
 * that each reads as a name, and takes one such column: a declaration has one signer).
 */
export function declarationSigners(text: string): { labelled: string[]; bare: string[] } {
  const labelled: string[] = [];
  const bare: string[] = [];
  if (!/sign|declare|certify|affirm/i.test(text)) return { labelled, bare };
  const { lines, from } = tail(text);
  const cells = (line: string) => line.split(COLUMN_SPLIT).map((c) => c.trim());
  for (const line of lines) {
    for (const cell of cells(line)) {
      const value = SIGNATURE_LABEL_RE.exec(cell)?.[1];
      if (value !== undefined) labelled.push(value.trim());
    }
  }
  const declared = DECLARATION_RE.exec(text);
  if (declared === null) return { labelled, bare };
  // The lines after the declaration's own (which is prose), up to the next section's heading: a declaration a PDF export
  // left above the skills ("TECHNICAL SKILLS\nVisual Basic\nTally Prime") signs nothing below it. The declaration is
  // among the last lines itself: a prose "I certify SOC 2 controls" further up signs nothing either.
  if (declared.index < from) return { labelled, bare };
  const below = text.slice(declared.index).split('\n').slice(1);
  const heading = below.findIndex((line) => SECTION_HEADING.test(line));
  const after = heading === -1 ? below : below.slice(0, heading);
  for (const line of after.reverse()) {
    for (const cell of cells(line).reverse()) {
      const value = BARE_CELL_RE.exec(cell)?.[1];
      if (value !== undefined && !/[.]$/.test(value)) bare.push(value.trim());
    }
  }
  return { labelled, bare };
}
