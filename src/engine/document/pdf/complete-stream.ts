/**
 * A stream's data only when it decodes completely: unfiltered, or one FlateDecode filter without
 * parameters whose zlib data runs to its end. The lenient `decodeStream` (structure.ts) keeps what
 * a truncated stream holds, as the structure analysis wants; a reader that must give exactly what
 * pdf.js gives cannot know how pdf.js would end such a stream, so it gets nothing and says so.
 */
import { inflateSync } from 'node:zlib';
import type { InflateBudget } from '../budget.js';
import { isDict } from './objects.js';
import type { IndirectObject } from './structure.js';

export function decodeCompleteStream(bytes: Buffer, obj: IndirectObject, budget: InflateBudget): Buffer | undefined {
  if (!obj.stream || !isDict(obj.value)) return undefined;
  const d = obj.value.entries;
  // Predictors, external files: not read here.
  if (d.has('DecodeParms') || d.has('F')) return undefined;
  const raw = bytes.subarray(obj.stream.start, obj.stream.end);
  const filter = d.get('Filter');
  if (filter === undefined) return raw;
  const only = Array.isArray(filter) ? (filter.length === 1 ? filter[0] : undefined) : filter;
  if (!only || typeof only !== 'object' || Array.isArray(only) || only.kind !== 'name' || only.name !== 'FlateDecode') return undefined;
  const cap = budget.nextCap();
  if (cap === 0) return undefined;
  try {
    const data = inflateSync(raw, { maxOutputLength: cap });
    budget.note(data.length, false, false);
    return data;
  } catch {
    // truncated or corrupt zlib data, or past the cap
    return undefined;
  }
}
