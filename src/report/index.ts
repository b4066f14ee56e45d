/**
 * The self-contained HTML report (docs/report.md): one file from a verification result (and, for
 * media and documents, the input file), with no network requests, no external fonts or scripts,
 * inline CSS, images as data: URIs. Pure apart from sharp: the caller writes the file.
 */
import { VerityError } from '../api/errors.js';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../api/results.js';
import { businessBody } from './business.js';
import { claimBody } from './claim.js';
import { page } from './common.js';
import { documentBody } from './document.js';
import { c2paThumbnails } from './c2pa-thumbnails.js';
import { drawableMap, exifThumbnail, frameStripImages, photo, tileMapPng } from './images.js';
import { mediaBody, type MediaAssets } from './media.js';

export { heatmapPng } from './images.js';

export type ReportKind = 'claim' | 'business' | 'media' | 'document';
export type AnyResult = ClaimResult | BusinessResult | MediaResult | DocumentResult;

const SCHEMAS = { claim: ClaimResult, business: BusinessResult, media: MediaResult, document: DocumentResult } as const;
const PREFIX: Record<string, ReportKind> = { clm: 'claim', biz: 'business', med: 'media', doc: 'document' };

/**
 * Which kind of result this is (by its id, else by its fields), checked against the result
 * schema. The object is returned as given (fields the schema does not know, such as a newer
 * server's additions, are kept for the renderer).
 */
export function readResult(json: unknown): { kind: ReportKind; result: AnyResult } {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new VerityError('VALIDATION_FAILED', 'The result file does not hold a verification result (expected a JSON object as printed by --json)');
  const o = json as Record<string, unknown>;
  const byId = typeof o.id === 'string' ? PREFIX[/^vrf_([a-z]{3})_/.exec(o.id)?.[1] ?? ''] : undefined;
  const kind: ReportKind | undefined =
    byId ?? ('verdict' in o ? 'claim' : 'legal_name' in o ? 'business' : 'authenticity' in o ? 'media' : 'manipulation_flags' in o ? 'document' : undefined);
  if (!kind) throw new VerityError('VALIDATION_FAILED', 'The result file is not a claim, business, media or document result (an error body, or another file?)');
  const parsed = SCHEMAS[kind].safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new VerityError('VALIDATION_FAILED', `The result file is not a valid ${kind} result: ${first ? `${first.path.join('.') || '(top)'}: ${first.message}` : 'schema mismatch'}`);
  }
  return { kind, result: json as AnyResult };
}

export interface ReportOptions {
  kind: ReportKind;
  result: AnyResult;
  /** The media or document file the result is about, when available. */
  input?: Buffer | null;
  /** How to name the subject: the file's name or URL, the claim text. */
  subject?: string | null;
  /** Why the input is not embedded (e.g. a URL input). */
  inputNote?: string | null;
  now: Date;
  version: string;
}

async function mediaAssets(r: MediaResult, input: Buffer | null | undefined, note: string | null | undefined): Promise<MediaAssets> {
  const f = r.forensics;
  const [ph, grid, noise] = await Promise.all([
    input ? photo(input) : Promise.resolve(null),
    f && drawableMap(f, f.jpeg_grid) ? tileMapPng(f, f.jpeg_grid!) : Promise.resolve(null),
    f && drawableMap(f, f.noise) ? tileMapPng(f, f.noise!) : Promise.resolve(null),
  ]);
  // The thumbnail is shown beside the image only when the analysis found that it differs.
  const thumbEvidence = r.evidence.find((e) => e.source === 'forensics.exif_thumbnail');
  const differs = !!thumbEvidence && !/matches the main image/.test(thumbEvidence.finding);
  const thumbnail = input && differs ? await exifThumbnail(input) : null;
  const c2pa = input && r.watermark ? await c2paThumbnails(input) : null;
  const frames = input && r.video?.pixels_analysed ? await frameStripImages(input, r.video.sampled.map((s) => s.index)) : null;
  return {
    frames,
    photo: ph,
    photoNote: ph ? null : input ? 'this build cannot decode the image for display (or it is a video)' : note ?? 'no input file was given (verity report … --input FILE embeds it)',
    gridOverlay: grid,
    noiseOverlay: noise,
    thumbnail,
    c2pa,
  };
}

/** `/home/me/photos/harbour.jpg` → `harbour.jpg`; URLs, `stdin` and claim texts stay as they are. */
export function displayName(subject: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(subject) || !/[\\/]/.test(subject)) return subject;
  return subject.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || subject;
}

export async function renderReport(o: ReportOptions): Promise<string> {
  const r = o.result;
  // A file is named by its base name (the title and heading), not the path it had on one machine.
  const subject = o.subject ? (o.kind === 'media' || o.kind === 'document' ? displayName(o.subject) : o.subject) : null;
  let body;
  switch (o.kind) {
    case 'claim':
      body = claimBody(r as ClaimResult, subject);
      break;
    case 'business':
      body = businessBody(r as BusinessResult);
      break;
    case 'media':
      body = mediaBody(r as MediaResult, await mediaAssets(r as MediaResult, o.input, o.inputNote), subject ?? 'Image or video');
      break;
    case 'document':
      body = documentBody(r as DocumentResult, subject ?? 'Document');
      break;
  }
  const id = (r as { id?: string }).id ?? '(no id)';
  return page({ title: `verity ${o.kind} report${subject ? ` — ${subject}` : ''}`, body, generatedAt: o.now.toISOString(), version: o.version, resultId: id });
}
