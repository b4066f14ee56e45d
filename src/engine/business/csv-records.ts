/**
 * A streaming RFC 4180 CSV reader for the bulk registry files (hundreds of MB): it yields one
 * array of fields per record and holds only the current chunk and the unfinished record, so
 * memory stays constant whatever the file size. Quoted fields may hold commas, doubled quotes
 * and line breaks; CRLF and LF both end records; a UTF-8 BOM is dropped.
 */
import type { Readable } from 'node:stream';

export async function* csvRecords(input: Readable | AsyncIterable<string | Buffer>): AsyncGenerator<string[]> {
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  // After a closing quote we wait to see whether the next char is another quote (escaped quote).
  let quoteClosed = false;
  let first = true;
  let sawAny = false;
  const decoder = new TextDecoder('utf-8');

  const parts: AsyncIterable<string | Buffer> = input;
  for await (const part of parts) {
    let s = typeof part === 'string' ? part : decoder.decode(part, { stream: true });
    if (first) {
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      first = false;
    }
    const n = s.length;
    let i = 0;
    while (i < n) {
      if (inQuotes) {
        const q = s.indexOf('"', i);
        if (q === -1) {
          field += s.slice(i);
          i = n;
          break;
        }
        field += s.slice(i, q);
        i = q + 1;
        inQuotes = false;
        quoteClosed = true;
        continue;
      }
      const c = s.charCodeAt(i);
      if (quoteClosed) {
        quoteClosed = false;
        if (c === 34) {
          // "" inside a quoted field: a literal quote, and we are back inside the quotes.
          field += '"';
          inQuotes = true;
          i++;
          continue;
        }
      }
      if (c === 34) {
        inQuotes = true;
        sawAny = true;
        i++;
      } else if (c === 44) {
        fields.push(field);
        field = '';
        sawAny = true;
        i++;
      } else if (c === 10 || c === 13) {
        if (sawAny || field.length > 0 || fields.length > 0) {
          fields.push(field);
          yield fields;
        }
        fields = [];
        field = '';
        sawAny = false;
        i++;
      } else {
        // Plain run of characters up to the next delimiter.
        let j = i + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (d === 44 || d === 10 || d === 13 || d === 34) break;
          j++;
        }
        field += s.slice(i, j);
        sawAny = true;
        i = j;
      }
    }
  }
  const tail = decoder.decode();
  if (tail) field += tail;
  if (sawAny || field.length > 0 || fields.length > 0) {
    fields.push(field);
    yield fields;
  }
}
