// A strict RFC 4180 reader for the tests: records end in CRLF, a field is quoted or holds no quote, CR or LF,
// and a quoted field holds doubled quotes. Anything else throws, so sloppy output cannot pass.
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break;
          field += '"';
          i += 2;
        } else {
          field += text[i];
          i++;
        }
      }
      i++; // the closing quote
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`unquoted ${JSON.stringify(text[i])} at ${i}`);
        field += text[i];
        i++;
      }
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else {
      throw new Error(`expected , or CRLF at ${i}`);
    }
  }
  if (record.length > 0) throw new Error('last record does not end in CRLF');
  return records;
}
