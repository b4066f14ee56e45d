/**
 * Reading a batch input into records: JSONL (one object a line), CSV (a header row) or a folder
 * of files. Only reading and splitting happen here; items.ts turns records into checked items.
 * Every bound is checked before the bytes are read, so a 1 GB file is refused at once.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { VerityError } from '../api/errors.js';

/** The largest JSONL/CSV input: files go by path (`file` fields or a folder) beyond this. */
export const MAX_INPUT_BYTES = 100 * 1024 * 1024;
/** The most items one batch may hold (keeps memory and a journal bounded). */
export const MAX_ITEMS = 100_000;

export { INPUT_FORMATS, type InputFormat } from './kinds.js';
import type { InputFormat } from './kinds.js';

/** One request as read, before any checking. `line` is 1-based (the position for a folder). */
export interface BatchRecord {
  line: number;
  fields: Record<string, unknown>;
  /** Set for folder entries: the path relative to the folder, which is also the default custom_id. */
  path?: string;
}

export interface BatchSource {
  kind: 'jsonl' | 'csv' | 'folder';
  records: BatchRecord[];
  /** Where relative `file` paths are resolved: the input file's folder, the folder itself, or cwd for stdin. */
  baseDir: string;
  /** Problems found while splitting (malformed lines), each naming its line. */
  problems: Array<{ field: string; issue: string }>;
}

const tooLarge = (what: string, bytes: number): VerityError =>
  new VerityError(
    'PAYLOAD_TOO_LARGE',
    `${what} is ${(bytes / 1048576).toFixed(1)} MB; a batch input may be at most ${MAX_INPUT_BYTES / 1048576} MB (put large files in a folder or name them in \`file\` fields)`,
    { details: [{ field: 'input', issue: `at most ${MAX_INPUT_BYTES / 1048576} MB` }] },
  );

const emptyInput = (what: string): VerityError =>
  new VerityError('UNPROCESSABLE_CONTENT', `${what} holds no items: there is nothing to verify`, {
    details: [{ field: 'input', issue: 'no items' }],
  });

/** The format of a file: the flag, else its extension, else its first character. */
export function detectFormat(text: string, name: string | undefined, given: InputFormat | undefined): InputFormat {
  if (given) return given;
  const ext = name ? extname(name).toLowerCase() : '';
  if (ext === '.csv') return 'csv';
  if (['.jsonl', '.ndjson', '.json'].includes(ext)) return 'jsonl';
  return text.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

/** JSONL: each non-blank line one JSON object; blank lines are skipped but still counted. */
export function parseJsonl(text: string): Pick<BatchSource, 'records' | 'problems'> {
  const records: BatchRecord[] = [];
  const problems: BatchSource['problems'] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (!raw.trim()) continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push({ field: `line ${line}`, issue: `not valid JSON (${(err as Error).message.replace(/^.*?:\s*/, '').slice(0, 80)})` });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ field: `line ${line}`, issue: 'must be a JSON object such as {"claim": "…"}' });
      continue;
    }
    records.push({ line, fields: value as Record<string, unknown> });
  }
  return { records, problems };
}

/** Columns whose CSV text stands for another JSON type. */
const BOOLEAN_COLUMNS = new Set(['officers', 'filings', 'check_deepfakes', 'check_provenance', 'check_watermarks']);
const NUMBER_COLUMNS = new Set(['max_evidence']);
const LIST_COLUMNS = new Set(['sources']);

/** A CSV cell as the JSON value the request schema expects; text that is not one is kept, so the schema names the field. */
function cellValue(column: string, cell: string): unknown {
  const v = cell.trim();
  if (BOOLEAN_COLUMNS.has(column)) {
    if (/^(true|yes|1)$/i.test(v)) return true;
    if (/^(false|no|0)$/i.test(v)) return false;
    return cell;
  }
  if (NUMBER_COLUMNS.has(column)) return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : cell;
  if (LIST_COLUMNS.has(column)) return v.split(/[\s,;|]+/).filter(Boolean);
  return cell;
}

/** CSV with a header row; an empty cell means "not given" (the request's default applies). */
export async function parseCsv(text: string): Promise<Pick<BatchSource, 'records' | 'problems'>> {
  const { parse } = await import('csv-parse/sync');
  let rows: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, info: true, trim: false }) as typeof rows;
  } catch (err) {
    const e = err as { lines?: number; message?: string };
    const field = typeof e.lines === 'number' ? `line ${e.lines}` : 'input';
    return { records: [], problems: [{ field, issue: `not valid CSV (${(e.message ?? 'parse error').replace(/ on line \d+$/, '')})` }] };
  }
  const records = rows.map(({ record, info }) => {
    const fields: Record<string, unknown> = {};
    for (const [column, cell] of Object.entries(record)) if (cell.trim() !== '') fields[column.trim()] = cellValue(column.trim(), cell);
    return { line: info.lines, fields };
  });
  return { records, problems: [] };
}

/** A folder: every regular file under it (dot-files left out), in a stable order. */
async function readFolder(dir: string): Promise<BatchRecord[]> {
  const paths: string[] = [];
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() || e.isSymbolicLink()) paths.push(full);
      if (paths.length > MAX_ITEMS)
        throw new VerityError('PAYLOAD_TOO_LARGE', `${dir} holds more than ${MAX_ITEMS.toLocaleString('en')} files; split it into several batches`, {
          details: [{ field: 'input', issue: `at most ${MAX_ITEMS} items` }],
        });
    }
  };
  await walk(dir);
  return paths.map((p, i) => {
    const rel = relative(dir, p).split(sep).join('/');
    return { line: i + 1, path: rel, fields: { file: rel } };
  });
}

export interface ReadOptions {
  cwd: string;
  format?: InputFormat;
  /** Reads stdin up to a byte bound (rejecting beyond it without reading the rest). */
  readStdin: (limitBytes: number) => Promise<Buffer>;
}

/** Reads `FILE`, a folder, or `-` (stdin) into records. */
export async function readBatchSource(input: string, o: ReadOptions): Promise<BatchSource> {
  let text: string;
  let name: string | undefined;
  let baseDir = o.cwd;
  if (input === '-') {
    const bytes = await o.readStdin(MAX_INPUT_BYTES);
    if (bytes.length === 0) throw emptyInput('stdin');
    text = bytes.toString('utf8');
  } else {
    const path = resolve(o.cwd, input);
    let st;
    try {
      st = await stat(path);
    } catch {
      throw new VerityError('VALIDATION_FAILED', `No such file or folder: ${input}`, { details: [{ field: 'input', issue: 'file not found or not readable' }] });
    }
    if (st.isDirectory()) {
      const records = await readFolder(path);
      if (records.length === 0) throw emptyInput(`The folder ${input}`);
      return { kind: 'folder', records, baseDir: path, problems: [] };
    }
    if (!st.isFile())
      throw new VerityError('VALIDATION_FAILED', `${input} is not a regular file or folder`, { details: [{ field: 'input', issue: 'must be a file, a folder or -' }] });
    if (st.size === 0) throw emptyInput(input);
    if (st.size > MAX_INPUT_BYTES) throw tooLarge(input, st.size);
    try {
      text = await readFile(path, 'utf8');
    } catch {
      throw new VerityError('VALIDATION_FAILED', `Cannot read ${input}`, { details: [{ field: 'input', issue: 'file not readable' }] });
    }
    name = input;
    baseDir = dirname(path);
  }
  const format = detectFormat(text, name, o.format);
  const parsed = format === 'csv' ? await parseCsv(text) : parseJsonl(text);
  if (parsed.records.length === 0 && parsed.problems.length === 0) throw emptyInput(name ?? 'stdin');
  if (parsed.records.length > MAX_ITEMS)
    throw new VerityError('PAYLOAD_TOO_LARGE', `${name ?? 'stdin'} holds ${parsed.records.length.toLocaleString('en')} items; a batch may hold at most ${MAX_ITEMS.toLocaleString('en')}`, {
      details: [{ field: 'input', issue: `at most ${MAX_ITEMS} items` }],
    });
  return { kind: format, baseDir, ...parsed };
}
