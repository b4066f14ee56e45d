/**
 * The document engine reuses the media engine's image analysis and C2PA reader (one module, not a
 * copy). They are loaded lazily; if that module cannot be loaded the document analysis goes on
 * without it and says so in `warnings`.
 */
import type { Watermark } from '../../api/results.js';
import type { EnginePorts } from '../types.js';

/** The part of the media engine's ImageAnalysis the document report uses. */
export interface ImageAnalysisView {
  metadata?: { width?: number; height?: number; format?: string };
  watermark?: Watermark | null;
  evidence?: { source: string; finding: string; authority_score: number }[];
  deepfakeScore?: number;
  manipulationScore?: number;
  flags?: string[];
  warnings?: string[];
}

export interface MediaBridge {
  analyzeImage(bytes: Buffer, opts: { checkDeepfakes: boolean; checkWatermarks: boolean; ports: EnginePorts; signal?: AbortSignal }): Promise<ImageAnalysisView>;
  readC2pa(bytes: Buffer, mimeType: string, opts: { trustAnchorsPem?: string; signal?: AbortSignal }): Promise<Watermark | null>;
}

// Specifiers held in variables so this module compiles whether or not media analysis is present.
const ANALYZE_IMAGE = '../media/analyze-image.js';
const C2PA = '../media/c2pa.js';

export async function loadMediaBridge(): Promise<{ bridge: Partial<MediaBridge>; missing: string[] }> {
  const bridge: Partial<MediaBridge> = {};
  const missing: string[] = [];
  try {
    const m = (await import(ANALYZE_IMAGE)) as { analyzeImage?: MediaBridge['analyzeImage'] };
    if (typeof m.analyzeImage === 'function') bridge.analyzeImage = m.analyzeImage;
    else missing.push('image analysis');
  } catch {
    missing.push('image analysis');
  }
  try {
    const m = (await import(C2PA)) as { readC2pa?: MediaBridge['readC2pa'] };
    if (typeof m.readC2pa === 'function') bridge.readC2pa = m.readC2pa;
    else missing.push('C2PA reading');
  } catch {
    missing.push('C2PA reading');
  }
  return { bridge, missing };
}
