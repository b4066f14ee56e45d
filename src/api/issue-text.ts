/**
 * Validation problems in our own words, one per field. zod's defaults (`Invalid option: expected
 * one of "web"|"wikipedia"…`, `Invalid input: expected number, received string`) read as a
 * library talking; messages we wrote in the schemas (`must be between 1 and 20`) are kept.
 */
import { z } from 'zod';

/** One problem with one field of a request: the `details` entries of every error. */
export const ErrorDetail = z.object({ field: z.string(), issue: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

type Issue = z.core.$ZodIssue;

const KIND: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  null: 'null',
};
const GOT: Record<string, string> = { string: 'text', number: 'a number', boolean: 'true/false', array: 'a list', object: 'an object', null: 'null', undefined: 'nothing' };

/** zod's default wording, as opposed to a message written in our schemas. */
const ZOD_DEFAULT = /^(Invalid (input|option|key|element|string|number|value)|Too (big|small)|Unrecognized key|Expected |Required$)/;

const unitOf = (origin: string | undefined): string =>
  origin === 'string' ? ' characters' : origin === 'array' || origin === 'set' ? ' items' : origin === 'file' ? ' bytes' : '';

/** One issue in plain words ("must be one of: web, wikipedia, …"). */
export function plainIssue(i: Issue): string {
  if (!ZOD_DEFAULT.test(i.message)) return i.message;
  const each = '';
  switch (i.code) {
    case 'invalid_value':
      return i.values.length === 1 ? `${each}must be ${JSON.stringify(i.values[0])}` : `${each}must be one of: ${i.values.map(String).join(', ')}`;
    case 'invalid_type': {
      const got = /received (\w+)/.exec(i.message)?.[1];
      if (got === 'undefined') return 'required';
      return `must be ${KIND[i.expected] ?? i.expected}${got && GOT[got] ? ` (got ${GOT[got]})` : ''}`;
    }
    case 'too_big':
      return `must be at most ${String(i.maximum)}${unitOf(i.origin)}`;
    case 'too_small':
      return i.origin === 'string' && Number(i.minimum) === 1 ? 'must not be empty' : `must be at least ${String(i.minimum)}${unitOf(i.origin)}`;
    case 'invalid_format':
      return `must be a valid ${i.format === 'regex' ? 'value' : i.format}`;
    case 'unrecognized_keys':
      return 'is not a field of this request';
    case 'invalid_union':
      return 'is not in a form this field accepts';
    default:
      return i.message;
  }
}

/** The dotted path (`sources.0`: list items keep their index); `(body)` for the whole request. */
const fieldOf = (path: readonly PropertyKey[], prefix: string): string => prefix + (path.length ? path.map(String).join('.') : '(body)');

/** The issues as details, one per field (the first problem found for it), unknown keys one each. */
export function issueDetails(issues: readonly Issue[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  const add = (field: string, issue: string): void => {
    if (seen.has(field)) return;
    seen.add(field);
    out.push({ field, issue });
  };
  for (const i of issues) {
    if (i.code === 'unrecognized_keys') for (const k of i.keys) add(fieldOf([...i.path, k], prefix), plainIssue(i));
    else add(fieldOf(i.path, prefix), plainIssue(i));
  }
  return out;
}

/** The field that names each kind's subject: a line with another kind's field is that kind. */
const SUBJECT_FIELD: Record<string, string> = { claim: 'claim', business: 'company_name', media: 'url', document: 'content' };

/**
 * An item of another kind (`{"company_name": …}` in a claim batch): the kind and the fields that
 * show it, when its own subject field is missing and another kind's is there.
 */
export function otherKind(t: string, details: ErrorDetail[]): { kind: string; fields: string[]; text: string } | undefined {
  const required = SUBJECT_FIELD[t];
  if (!details.some((d) => d.field === required && /required/.test(d.issue))) return undefined;
  const unknown = details.filter((d) => d.issue === 'is not a field of this request').map((d) => d.field);
  const kind = Object.entries(SUBJECT_FIELD).find(([k, f]) => k !== t && unknown.includes(f))?.[0];
  if (!kind) return undefined;
  return { kind, fields: unknown, text: `looks like a ${kind} item (${unknown.join(', ')}), not a ${t}` };
}
