/**
 * The revision timeline of a PDF (the document result's additive `revisions` field, for the HTML
 * report): each revision's byte range, which signatures end there, what it changed, and which
 * earlier signatures its changes break. It only rearranges what the analysis already computed:
 * the object-by-object change descriptions (pdf/changes.ts) and the difference analysis against
 * each signed revision (pdf/diff-policy.ts), so the picture and the evidence cannot disagree.
 */
import type { RevisionEntry } from '../../api/results.js';
import type { ObjectChange } from './pdf/changes.js';
import { summariseChanges } from './pdf/changes.js';
import type { RevisionDiff } from './pdf/diff-policy.js';
import type { SignatureCheck } from './pdf/signatures.js';
import type { Revision } from './pdf/structure.js';

/** At most this many revisions are listed (the newest are kept: they hold the changes after signing). */
export const MAX_TIMELINE_REVISIONS = 200;
const MAX_CHANGED = 10;
const MAX_REASONS = 5;

export interface TimelineInput {
  revisions: readonly Revision[];
  /** In the order of the result's `signatures` (indices into it are what the timeline names). */
  signatures: readonly SignatureCheck[];
  changesByRev: ReadonlyMap<number, ObjectChange[]>;
  /** Per signed revision (base), the later revisions compared with it. */
  diffsByBase: ReadonlyMap<number, RevisionDiff[]>;
  describeViolation(v: { num: number; reason: string; revision: number }): string;
}

export function revisionTimeline(t: TimelineInput): RevisionEntry[] {
  const entries = new Map<number, RevisionEntry>();
  for (const r of t.revisions.slice(-MAX_TIMELINE_REVISIONS)) {
    const changes = t.changesByRev.get(r.index) ?? [];
    entries.set(r.index, {
      index: r.index,
      start: r.start,
      end: r.end,
      signatures: [],
      changes: r.index === 0 ? 'original document' : summariseChanges(changes) || 'no objects',
      changed: changes.filter((c) => c.kind !== 'structure').slice(0, MAX_CHANGED).map((c) => c.what),
      level: null,
      breaks: [],
      reasons: [],
    });
  }
  t.signatures.forEach((sig, i) => {
    if (sig.revisionIndex !== null) entries.get(sig.revisionIndex)?.signatures.push(i);
    if (sig.coversWholeFile || sig.revisionIndex === null) return;
    for (const d of t.diffsByBase.get(sig.revisionIndex) ?? []) {
      const e = entries.get(d.revision);
      if (!e) continue;
      // The most permissive kind of update the revision needed, as seen from the earliest base.
      e.level ??= d.level;
      const hits = d.violations.filter((v) => v.onlyFor === undefined || v.onlyFor === sig.objNum);
      if (!hits.length) continue;
      e.breaks.push(i);
      for (const v of hits) {
        const why = t.describeViolation({ ...v, revision: d.revision });
        if (e.reasons.length < MAX_REASONS && !e.reasons.includes(why)) e.reasons.push(why);
      }
    }
  });
  return [...entries.values()];
}

/** Which revision a signature's signed bytes end at, and where (the summary's additive fields). */
export const signatureCoverage = (sig: SignatureCheck): { revision: number | null; signed_bytes: number } => ({
  revision: sig.revisionIndex,
  signed_bytes: sig.byteRange[2] + sig.byteRange[3],
});
