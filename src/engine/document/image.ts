/**
 * Images — a whole image document, or images embedded in a PDF/DOCX — go through the media
 * engine's analysis (src/engine/media/analyze-image.ts: one module, shared, not a copy) and are
 * reported here in document terms.
 */
import type { ManipulationFlag } from '../../api/results.js';
import type { EnginePorts } from '../types.js';
import type { Budget } from './budget.js';
import { UNKNOWN_PRODUCER, emptyAnalysis, type FormatAnalysis, type Finding } from './report.js';

/** Flags the image analysis may raise that keep their meaning for a document. */
const IMAGE_FLAGS: ReadonlySet<string> = new Set(['image_manipulated', 'deepfake', 'metadata_stripped', 'inconsistent_timestamps']);

export async function analyzeImageDocument(bytes: Buffer, ports: EnginePorts, opts: { checkDeepfakes: boolean; checkWatermarks: boolean }, budget: Budget): Promise<FormatAnalysis> {
  const { analyzeImage } = await import('../media/analyze-image.js');
  const img = await analyzeImage(bytes, { ...opts, ports, signal: budget.signal, budgetMs: Math.max(1000, budget.remaining()) });
  const a = emptyAnalysis('image');
  const exif = img.metadata.exif;
  const camera = [exif.make, exif.model].filter(Boolean).join(' ');
  a.metadata = {
    author: null,
    created_at: exif.datetime_original,
    producer: img.details.software ?? img.details.creatorTool ?? img.generator ?? (camera || UNKNOWN_PRODUCER),
    page_count: 1,
  };
  a.watermark = img.watermark;
  a.warnings.push(...img.warnings);
  for (const e of img.evidence) a.findings.push({ source: `image_${e.source}`, finding: e.finding, authority: e.authority_score, severity: 0, ...(e.summary ? { summary: e.summary } : {}) });
  for (const f of img.flags) {
    if (!IMAGE_FLAGS.has(f)) continue;
    const score = f === 'deepfake' ? img.deepfakeScore : f === 'image_manipulated' ? img.manipulationScore : 0.35;
    a.findings.push({ source: 'image_analysis', finding: `the image analysis raised ${f}${f === 'deepfake' || f === 'image_manipulated' ? ` (score ${score.toFixed(2)})` : ''}`, authority: 0.6, flag: f as ManipulationFlag, severity: Math.max(0.3, Math.min(0.8, score)) });
  }
  a.provenance = img.watermark?.validation_state === 'trusted' ? 0.95 : img.watermark?.validation_state === 'valid' ? 0.8 : img.metadata.exif.make ? 0.6 : 0.45;
  return a;
}

/**
 * Embedded images: only pixel-level flags carry over (PDF writers strip image metadata as a
 * matter of course), and only at a score of at least EMBEDDED_FLAG_SCORE, because writers also
 * re-encode images, which the JPEG forensics read as weak signs of editing.
 */
export const EMBEDDED_FLAG_SCORE = 0.6;

export async function analyzeEmbeddedImages(
  images: { bytes: Buffer; label: string }[],
  ports: EnginePorts,
  checkDeepfakes: boolean,
  budget: Budget,
): Promise<{ findings: Finding[]; warnings: string[] }> {
  const findings: Finding[] = [];
  const warnings: string[] = [];
  if (images.length === 0) return { findings, warnings };
  const { analyzeImage } = await import('../media/analyze-image.js');
  // All images start at once: libvips decodes on its own threads while the forensics of another
  // image run in JavaScript. Results are read back in list order, so the findings keep that order.
  const runs = images.map((im) => {
    if (budget.expired()) return undefined;
    const run = analyzeImage(im.bytes, { checkDeepfakes, checkWatermarks: false, ports, signal: budget.signal, budgetMs: Math.max(500, Math.min(budget.remaining(), 10_000)) });
    run.catch(() => undefined);
    return run;
  });
  let analysed = 0;
  for (const [i, im] of images.entries()) {
    const run = runs[i];
    if (!run) {
      warnings.push(`the time budget ran out: ${images.length - analysed} embedded image(s) were not analysed`);
      break;
    }
    try {
      const r = await run;
      analysed++;
      for (const f of r.flags) {
        if (f !== 'image_manipulated' && f !== 'deepfake') continue;
        const score = f === 'deepfake' ? r.deepfakeScore : r.manipulationScore;
        if (score < EMBEDDED_FLAG_SCORE) continue;
        const top = r.evidence.filter((e) => e.authority_score >= 0.5 && !e.source.startsWith('c2pa')).slice(0, 2).map((e) => `${e.source}: ${e.finding}`).join('; ');
        findings.push({ source: 'embedded_image', finding: `${im.label} (${r.metadata.width}×${r.metadata.height} ${r.metadata.format}): ${f} score ${score.toFixed(2)}${top ? ` — ${top}` : ''}`, authority: 0.6, flag: f, severity: Math.max(0.3, Math.min(0.8, score)) });
      }
    } catch (err) {
      warnings.push(`${im.label} could not be analysed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (analysed > 0 && findings.length === 0)
    findings.push({ source: 'embedded_image', finding: `${analysed} embedded image(s) analysed; none shows signs of editing or generation`, authority: 0.5, severity: 0 });
  return { findings, warnings };
}
