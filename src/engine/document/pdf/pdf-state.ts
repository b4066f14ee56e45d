/**
 * The document as it stood at the end of one revision: which version of each object was live
 * (later versions and free entries taken into account), what the trailer said, and who referred
 * to whom. The difference analysis (diff-policy.ts) compares two such states.
 */
import { isDict, isRef, nameOf, type PdfDict, type PdfValue } from './objects.js';
import type { IndirectObject, PdfStructure } from './structure.js';

/** How deep reference walks go: hostile files nest or chain references without end. */
export const MAX_WALK_DEPTH = 64;

export class PdfState {
  private usage: Map<number, number> | undefined;
  private reachable: Set<number> | undefined;

  constructor(
    readonly s: PdfStructure,
    /** Index of the revision whose end this state is. */
    readonly revision: number,
    private readonly live: Map<number, IndirectObject>,
    readonly trailer: PdfDict | undefined,
  ) {}

  /** The states at the end of every revision. */
  static all(s: PdfStructure): PdfState[] {
    const out: PdfState[] = [];
    const live = new Map<number, IndirectObject>();
    for (const rev of s.revisions) {
      for (const num of rev.freed) live.delete(num);
      for (const o of rev.objects) live.set(o.num, o);
      // The section of this revision holds its trailer; the newest section comes first.
      const sec = s.sections.find((x) => x.offset >= rev.start && (x.offset < rev.end || rev.index === s.revisions.length - 1));
      const trailer = sec?.trailer ?? (rev.index === s.revisions.length - 1 ? s.trailer : undefined) ?? out[out.length - 1]?.trailer;
      out.push(new PdfState(s, rev.index, new Map(live), trailer));
    }
    return out;
  }

  get(num: number): IndirectObject | undefined {
    return this.live.get(num);
  }

  has(num: number): boolean {
    return this.live.has(num);
  }

  /** Follows a reference (one step); direct values come back as they are. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    return isRef(v) ? this.live.get(v.num)?.value : v;
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

  /** How many places (dictionary entries and array slots of live objects, and the trailer) refer to each object. */
  usageCount(num: number): number {
    if (!this.usage) {
      const usage = new Map<number, number>();
      const count = (v: PdfValue | undefined): void => {
        for (const r of refsIn(v)) usage.set(r, (usage.get(r) ?? 0) + 1);
      };
      count(this.trailer);
      // Cross-reference stream dictionaries are trailers (of this or older sections): counted once, above.
      for (const o of this.live.values()) if (!(isDict(o.value) && nameOf(o.value, 'Type') === 'XRef')) count(o.value);
      this.usage = usage;
    }
    return this.usage.get(num) ?? 0;
  }

  /** Whether the object can be reached from the trailer (Root, Info, …). */
  isReachable(num: number): boolean {
    if (!this.reachable) {
      const seen = new Set<number>();
      const queue = refsIn(this.trailer);
      while (queue.length) {
        const n = queue.pop()!;
        if (seen.has(n)) continue;
        seen.add(n);
        const o = this.live.get(n);
        if (o) for (const r of refsIn(o.value)) if (!seen.has(r)) queue.push(r);
      }
      this.reachable = seen;
    }
    return this.reachable.has(num);
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
