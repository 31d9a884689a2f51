// A small RFC 4180 CSV parser: quoted fields, doubled quotes, embedded commas and newlines, CRLF or LF, optional BOM.

export class CsvError extends Error {
  override name = 'CsvError';
}

/** Parses CSV text into rows of fields; a quote inside an unquoted field is kept literally, an unclosed quote throws. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    row.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRow = () => {
    endField();
    // A blank line (one empty field) is no record.
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        field += ch;
      }
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (ch === ',') {
      endField();
    } else if (ch === '\r' && text[i + 1] === '\n') {
      // CRLF: the LF ends the row on the next turn.
    } else if (ch === '\n') {
      endRow();
    } else {
      field += ch;
      fieldStarted = true;
    }
  }
  if (quoted) throw new CsvError('unterminated quoted field at end of input');
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/** Rows as objects keyed by the header row; every named column must be present. */
export function parseCsvRecords(text: string, required: string[]): Array<Record<string, string>> {
  const [header, ...body] = parseCsv(text);
  if (!header) throw new CsvError('empty CSV');
  const names = header.map((h) => h.trim());
  const missing = required.filter((r) => !names.includes(r));
  if (missing.length) throw new CsvError(`missing column(s) ${missing.join(', ')}; found ${names.join(', ')}`);
  return body.map((cells, n) => {
    if (cells.length !== names.length) throw new CsvError(`record ${n + 1}: ${cells.length} fields, header has ${names.length}`);
    return Object.fromEntries(names.map((name, j) => [name, cells[j]!]));
  });
}
