// Job titles as other languages write them ("Softwareentwickler München", "Développeur Java", "Werkstudent
// Softwareentwicklung"): a header line of capitalised words that is a title, not a person, whose words would
// otherwise be removed wherever the resume writes them (its place, its employer's city).
const TITLE_WORD =
  /^(?:\p{L}{0,20}(?:entwickler|ingenieur|berater|leiter|architekt|informatiker|techniker|spezialist|referent|sachbearbeiter)(?:in)?|werkstudent(?:in)?|praktikant(?:in)?|softwareentwicklung|d[ée]veloppeu(?:r|se)|ing[ée]nieure?|programmeu(?:r|se)|administrat(?:eur|rice)|responsable|desarrollador(?:a)?|ingenier[oa]|programador(?:a)?|desenvolvedor(?:a)?|engenheir[oa]|analista|consultor(?:a)?|sviluppat(?:ore|rice)|gerente|jef[ea]|dire(?:c)?tor(?:a)?|t[ée]cnic[oa]|especialista)$/iu;

/** Whether the word is a job title (or its compound) in German, French, Spanish, Portuguese or Italian. */
export const isForeignJobTitle = (word: string): boolean => TITLE_WORD.test(word);
