// The labels that name a person in a resume's entries, beside contact and referee labels (introduced-names.ts): a
// manager's, a supervisor's, a ref's or a relation's, right after an opening bracket ("Jane Roe (manager: John
// Smith)", "(lead: Jane Doe)") or alone at a line's start ("Manager: John Smith"), and which of them need a title or a
// common given name before their value is taken for a person's.

// A label that names a person only right after an opening bracket and before a colon, in another's entry or after an
// employer ("Jane Roe (manager: John Smith)", "Acme (ref: Jane Roe)", "(reports to: John Smith)"): elsewhere
// "Engineering Manager: Stripe Atlas" is a title and its employer. "ref" also refers to a document ("(ref: Annual
// Report)"), and a relation to a role ("(reports to: Head of Data)"): their value needs a title or a common given name
// (GIVEN_OR_TITLED_LABEL), as a relation's does without a colon (introduced-names.ts, findFurtherReferees).
// A label's colon, or a dash that stands for one ("(Manager – John Smith)", "(manager - John Smith)"; a hyphen needs a
// space before it: "(Manager-led)" is a word).
const LABEL_SEPARATOR = '(?:[ \\t]*[:–—]|[ \\t]+-)';
// The relations a label in brackets may name: "(lead: John Smith)", "(advisor: Prof. Jane Roe)", "(PI: Dr. Sam Keller)",
// "(reviewer: Jane Roe)", "(director: John Smith)".
const RELATION_LABEL =
  '(?:(?:[Tt]eam|[Tt]ech(?:nical)?|[Pp]roject)[ \\t]+)?[Ll]ead|(?:TEAM|TECH)[ \\t]+LEAD|LEAD|[Aa]dvis[eo]r|ADVIS[EO]R|(?:[Tt]hesis[ \\t]+)?[Ss]upervised[ \\t]+by|' +
  '[Mm]entor(?:ed[ \\t]+by)?|MENTOR|[Ss]ponsor|SPONSOR|[Cc]oach|COACH|PI|[Pp]rincipal[ \\t]+[Ii]nvestigator|[Rr]eviewer|[Ii]nterviewer|[Rr]ecruiter|' +
  '[Dd]irector|DIRECTOR|[Bb]oss';
// What a manager's or supervisor's label in brackets may say whose it is: "(hiring manager: John Smith)", "(Engineering
// Manager: Jane Roe)". Such a label is also a title's ("(Product Manager: Payments App)"): its value needs a title or a
// common given name.
const MANAGER_OF =
  '(?:[Hh]iring|[Pp]roject|[Pp]roduct|[Ee]ngineering|[Pp]rogram(?:me)?|[Aa]ccount|[Dd]elivery|[Gg]eneral|[Tt]eam|[Dd]epartment|[Rr]egional|[Ss]enior)[ \\t]+';
// The words before Manager or Supervisor that keep a label a person's at a line's start too: "(line manager: ...)",
// "Reporting Manager: ...". The labels themselves, and a relation with "to".
const MANAGER_KIND = '(?:[Ll]ine|[Dd]irect|[Ff]ormer|[Rr]eporting)[ \\t]+';
const MANAGER = '(?:[Mm]anager|[Ss]upervisor)';
const REPORTS_TO = '[Rr]eport(?:s|ing)[ \\t]+to|REPORT(?:S|ING)[ \\t]+TO';
// A relation named only in brackets: "(editor: Jane Roe)" after a publication; at a line's start "Editor: VS Code" is a tool.
const BRACKETED_RELATION = '[Ee]ditor|EDITOR';
// Whose the relation is, before any bracketed label: "(my boss: John Smith)", "(our lead: Jane Roe)".
const POSSESSIVE = '(?:[Mm]y|MY|[Oo]ur|OUR)[ \\t]+';
const BRACKETED_LABEL =
  `(?<=[(\\[][ \\t]{0,3})(?:${POSSESSIVE})?(?:(?:${MANAGER_KIND}|${MANAGER_OF})?${MANAGER}|MANAGER|SUPERVISOR|[Rr]ef|REF|${REPORTS_TO}|${RELATION_LABEL}|${BRACKETED_RELATION})${LABEL_SEPARATOR}`;
// At a line's start, alone before its colon, a manager's, a supervisor's or a relation's label names a person too
// ("Manager: John Smith", "- Reporting to: Dr. Jane Roe", "Mentor: Jane Roe"); after a title it is the title's
// ("Engineering Manager: Stripe Atlas").
const LINE_LABEL =
  `(?<=(?:^|\\n)[ \\t]{0,8}(?:[-•*·][ \\t]{0,3})?)(?:(?:${MANAGER_KIND})?${MANAGER}|MANAGER|SUPERVISOR|${REPORTS_TO}|${RELATION_LABEL})[ \\t]*:`;
// Labels whose value may be no person ("(ref: Annual Report)", "(reports to: Head of Data)", "(lead: Platform Team)",
// "Manager: Stripe Atlas"): it needs a title or a common given name, as a relation's does without a colon; so does any
// value after a dash.
const GIVEN_OR_TITLED_LABEL = new RegExp(`^(?:ref|report(?:s|ing)[ \\t]+to|${RELATION_LABEL}|${BRACKETED_RELATION})${LABEL_SEPARATOR}`, 'i');
const LEADING_POSSESSIVE = new RegExp(`^${POSSESSIVE}`, 'i');
/** The labels above, as a pattern of alternatives (with their colon or dash) for introduced-names.ts's LABEL_RE. */
export const PERSON_LABEL = `${BRACKETED_LABEL}|${LINE_LABEL}`;
/**
 * The words every label above holds, wherever they stand: introduced-names.ts skips a text with none of them (nor any
 * other cue of its own), so a label added above is read without a second list to keep in step.
 */
export const PERSON_LABEL_WORDS = `${MANAGER}|MANAGER|SUPERVISOR|[Rr]ef|REF|${REPORTS_TO}|${RELATION_LABEL}|${BRACKETED_RELATION}`;

const QUALIFIED_MANAGER_LABEL = new RegExp(`^${MANAGER_OF}${MANAGER}`, 'i');
const MANAGER_LABEL = new RegExp(`^(?:${MANAGER_KIND})?${MANAGER}`, 'i');
/**
 * Whether the value of a label (its words to its colon or dash, as LABEL_RE matched them) needs a title or a common given
 * name to be a person's. bracketed: the label opens its brackets.
 */
export function needsGivenOrTitle(labelAsWritten: string, bracketed: boolean): boolean {
  // "(my boss: ...)" needs what "(boss: ...)" needs.
  const label = labelAsWritten.replace(LEADING_POSSESSIVE, '');
  if (GIVEN_OR_TITLED_LABEL.test(label) || QUALIFIED_MANAGER_LABEL.test(label)) return true;
  // A plain manager's or supervisor's label needs one too at a line's start or with a dash ("Manager: Stripe Atlas",
  // "(Manager – Payments)"), not with its colon right after a bracket ("(manager: Xiaoming Zhang)").
  if (!MANAGER_LABEL.test(label)) return false;
  return !label.endsWith(':') || !bracketed;
}
