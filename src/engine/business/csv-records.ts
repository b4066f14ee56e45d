/**
 * A streaming RFC 4180 CSV reader for the bulk registry files (hundreds of MB): it yields one
 * array of fields per record and holds only the current chunk and the unfinished record, so
 * memory stays constant whatever the file size. Quoted fields may hold commas, doubled quotes
 * and line breaks; CRLF and LF both end records; a UTF-8 BOM is dropped.
 */
import type { Readable } from 'node:stream';
import { VerityError } from '../../api/errors.js';

/** A record longer than this is not a registry row: the file is refused rather than buffered. */
export const MAX_RECORD_CHARS = 8 << 20;

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

/** One decoded chunk's worth of records, only the selected columns, flattened. */
export interface ColumnBatch {
  /** `records × width` values, record after record; a column a short record lacks is ''. */
  values: string[];
  records: number;
  /** Source bytes consumed up to the end of this batch (for progress). */
  bytes: number;
}

/**
 * The bulk importers' reader: the same RFC 4180 dialect as `csvRecords`, but it materialises
 * only the columns asked for and hands them over a chunk at a time. The registry files have
 * 30–55 columns of which the importers keep 5–10, so not slicing the other fields and not
 * allocating one array per record is most of the parsing cost saved. A quoted field with no
 * doubled quote (the product quotes every field) costs one `indexOf`.
 *
 * `select` receives the header record (all its fields) and returns the column index for each
 * output slot (-1: always ''); it may throw to reject the file.
 */
export async function* csvColumnBatches(
  input: AsyncIterable<string | Buffer>,
  select: (header: string[]) => number[],
  onBytes?: (n: number) => void,
): AsyncGenerator<ColumnBatch> {
  const decoder = new TextDecoder('utf-8');
  let slotOf: Int32Array | null = null; // column index → output slot, -1 when not kept
  let width = 0;
  let header: string[] | null = null;
  let carry = ''; // the unfinished record at the end of the previous chunk
  let bytes = 0;
  let first = true;

  // Parses whole records of `s`; returns where the unfinished tail starts (s.length when none).
  // At the end of the input (`final`) the end of the string also ends a record.
  const parse = (s: string, final: boolean, out: string[]): { end: number; records: number } => {
    const n = s.length;
    let p = 0;
    let records = 0;
    const row = new Array<string>(Math.max(width, 1)); // this record's kept values until it is complete
    while (p < n) {
      const start = p;
      let c = s.charCodeAt(p);
      if (c === 10 || c === 13) {
        p++; // blank line, or the LF of a CRLF
        continue;
      }
      let col = 0;
      let complete = false;
      const fields: string[] | null = header ? null : [];
      if (header) row.fill('');
      for (;;) {
        let value: string;
        if (c === 34) {
          // Quoted field: fast when it holds no doubled quote.
          let q = s.indexOf('"', p + 1);
          if (q === -1) {
            if (!final) return { end: start, records };
            value = s.slice(p + 1);
            p = n;
          } else if (q + 1 < n && s.charCodeAt(q + 1) !== 34) {
            value = s.slice(p + 1, q);
            p = q + 1;
          } else if (q + 1 >= n && !final) {
            return { end: start, records }; // cannot tell "" from a closing quote yet
          } else {
            // Doubled quotes ("" = ") and possibly the end of input.
            value = s.slice(p + 1, q);
            p = q + 1;
            while (p < n && s.charCodeAt(p) === 34) {
              q = s.indexOf('"', p + 1);
              if (q === -1) {
                if (!final) return { end: start, records };
                value += '"' + s.slice(p + 1);
                p = n;
                break;
              }
              if (q + 1 >= n && !final) return { end: start, records };
              value += '"' + s.slice(p + 1, q);
              p = q + 1;
            }
          }
          // Lenient like csvRecords: characters after the closing quote belong to the field.
          if (p < n) {
            c = s.charCodeAt(p);
            if (c !== 44 && c !== 10 && c !== 13) {
              let j = p;
              while (j < n && (c = s.charCodeAt(j)) !== 44 && c !== 10 && c !== 13) j++;
              if (j === n && !final) return { end: start, records };
              value += s.slice(p, j).replace(/"/g, '');
              p = j;
            }
          }
        } else {
          let j = p;
          while (j < n && (c = s.charCodeAt(j)) !== 44 && c !== 10 && c !== 13) j++;
          if (j === n && !final) return { end: start, records };
          value = s.slice(p, j);
          p = j;
        }
        if (fields) fields.push(value);
        else if (col < slotOf!.length && slotOf![col]! >= 0) row[slotOf![col]!] = value;
        col++;
        if (p >= n) {
          if (!final) return { end: start, records };
          complete = true;
          break;
        }
        c = s.charCodeAt(p);
        if (c === 44) {
          p++;
          if (p >= n) {
            if (!final) return { end: start, records };
            // A trailing comma at the very end: one more, empty field.
            if (fields) fields.push('');
            complete = true;
            break;
          }
          c = s.charCodeAt(p);
          continue;
        }
        // CR or LF ends the record (the LF of a CRLF is skipped as a blank line).
        p++;
        complete = true;
        break;
      }
      if (!complete) return { end: start, records };
      if (fields) {
        header = fields;
        const cols = select(fields);
        width = cols.length;
        slotOf = new Int32Array(fields.length).fill(-1);
        cols.forEach((ci, slot) => {
          if (ci >= 0 && ci < slotOf!.length) slotOf![ci] = slot;
        });
        return { end: p, records }; // the next call sizes `row` for the selection
      }
      for (let k = 0; k < width; k++) out.push(row[k]!);
      records++;
    }
    return { end: n, records };
  };

  const drain = function* (s: string, final: boolean): Generator<ColumnBatch, string> {
    let rest = s;
    for (;;) {
      const out: string[] = [];
      const hadHeader = header !== null;
      const { end, records } = parse(rest, final, out);
      if (records) yield { values: out, records, bytes };
      rest = rest.slice(end);
      // Parsing stopped at the header: go on with the selection known.
      if (!hadHeader && header !== null && rest.length) continue;
      return rest;
    }
  };

  for await (const part of input) {
    let s = typeof part === 'string' ? part : decoder.decode(part, { stream: true });
    if (typeof part !== 'string') {
      bytes += part.length;
      onBytes?.(part.length);
    }
    if (first && s.length) {
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      first = false;
    }
    carry = yield* drain(carry + s, false);
    // An unterminated quote would otherwise buffer (and re-scan) the rest of the file.
    if (carry.length > MAX_RECORD_CHARS)
      throw new VerityError('UNPROCESSABLE_CONTENT', `a CSV record is longer than ${MAX_RECORD_CHARS} characters (unbalanced quotes?)`);
  }
  const tail = carry + decoder.decode();
  if (tail.length) yield* drain(tail, true);
}
