/**
 * The document as it stood at the end of one revision: which version of each object was live
 * (later versions and free entries taken into account), what the trailer said, and how many
 * places referred to each object. The difference analysis (diff-policy.ts) compares two such
 * states. States are produced one after another and updated by each revision's changes only, so
 * a file with thousands of revisions costs time in proportion to what the revisions hold, not
 * revisions × objects (plus one snapshot per signed revision).
 */
import { isDict, isRef, nameOf, type PdfDict, type PdfValue } from './objects.js';
import type { IndirectObject, PdfStructure } from './structure.js';

/** How deep reference walks go: hostile files nest or chain references without end. */
export const MAX_WALK_DEPTH = 64;

export class PdfState {
  constructor(
    /** Index of the revision whose end this state is. */
    readonly revision: number,
    readonly trailer: PdfDict | undefined,
    private readonly lookup: (num: number) => IndirectObject | undefined,
    private readonly uses: (num: number) => number,
  ) {}

  get(num: number): IndirectObject | undefined {
    return this.lookup(num);
  }

  has(num: number): boolean {
    return this.lookup(num) !== undefined;
  }

  /** Follows a reference (one step); direct values come back as they are. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    return isRef(v) ? this.lookup(v.num)?.value : v;
  }

  dict(v: PdfValue | undefined): PdfDict | undefined {
    const r = this.resolve(v);
    return isDict(r) ? r : undefined;
  }

  get rootRef(): PdfValue | undefined {
    return this.trailer?.entries.get('Root');
  }

  get root(): PdfDict | undefined {
    return this.dict(this.rootRef);
  }

  /** How many places (dictionary entries and array slots of live objects, and the trailer) refer to an object. */
  usageCount(num: number): number {
    return this.uses(num);
  }
}

/** Object numbers referred to directly inside a value (not following references). */
export function refsIn(v: PdfValue | undefined, depth = 0): number[] {
  const out: number[] = [];
  const walk = (x: PdfValue | undefined, d: number): void => {
    if (x === null || x === undefined || typeof x !== 'object' || d > MAX_WALK_DEPTH) return;
    if (Array.isArray(x)) for (const y of x) walk(y, d + 1);
    else if (x.kind === 'ref') out.push(x.num);
    else if (x.kind === 'dict') for (const y of x.entries.values()) walk(y, d + 1);
  };
  walk(v, depth);
  return out;
}

/** Cross-reference stream dictionaries are trailers: their references count once, as the trailer's. */
const counts = (o: IndirectObject | undefined): boolean => !!o && !(isDict(o.value) && nameOf(o.value, 'Type') === 'XRef');

/**
 * Calls `visit(base, next)` for every base revision in `bases` and every later revision `next`
 * (pyHanko's way: each later revision is compared with the signed one). States are built by
 * applying each revision's changes to one running state; a base is a snapshot of it. Both states
 * are valid only during the call.
 */
export function forEachLaterRevision(s: PdfStructure, bases: ReadonlySet<number>, visit: (base: PdfState, next: PdfState) => void): void {
  const live = new Map<number, IndirectObject>();
  const usage = new Map<number, number>();
  const bump = (v: PdfValue | undefined, by: number): void => {
    for (const r of refsIn(v)) usage.set(r, (usage.get(r) ?? 0) + by);
  };
  const snapshots: PdfState[] = [];
  let trailer: PdfDict | undefined;
  for (let k = 0; k < s.revisions.length; k++) {
    const rev = s.revisions[k]!;
    const last = k === s.revisions.length - 1;
    // This revision's changes: null marks a freed object; a later definition in the same revision wins.
    const changes = new Map<number, IndirectObject | null>();
    for (const num of rev.freed) changes.set(num, null);
    for (const o of rev.objects) changes.set(o.num, o);
    for (const [num, o] of changes) {
      const prev = live.get(num);
      if (counts(prev)) bump(prev!.value, -1);
      if (o) {
        live.set(num, o);
        if (counts(o)) bump(o.value, 1);
      } else live.delete(num);
    }
    const sec = s.sections.find((x) => x.offset >= rev.start && (x.offset < rev.end || last));
    const nextTrailer = sec?.trailer ?? (last ? s.trailer : undefined) ?? trailer;
    bump(trailer, -1);
    bump(nextTrailer, 1);
    trailer = nextTrailer;
    if (k > 0 && snapshots.length) {
      const next = new PdfState(k, trailer, (n) => live.get(n), (n) => usage.get(n) ?? 0);
      for (const base of snapshots) visit(base, next);
    }
    if (bases.has(k)) {
      const frozen = new Map(live);
      const frozenUsage = new Map(usage);
      snapshots.push(new PdfState(k, trailer, (n) => frozen.get(n), (n) => frozenUsage.get(n) ?? 0));
    }
  }
}
