/**
 * Signals read from metadata alone: AI-generator fingerprints, editing-software traces, declared
 * digital source types (IPTC / C2PA) and timestamp consistency. These are declarations, not
 * measurements: present they are strong (a generator rarely writes its own name by accident),
 * absent they prove nothing, since any metadata can be stripped or forged.
 */
import type { Watermark } from '../../../api/results.js';
import { AI_SOURCE_TYPES, sourceTypeName } from '../c2pa.js';
import type { MetadataDetails } from '../metadata.js';
import type { JpegStructure } from './jpeg-structure.js';
import type { Signal } from './types.js';

const isJson = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
};

/** AUTOMATIC1111 / Forge "parameters" text: prompt, then a settings line with Steps and Sampler. */
const A1111 = /(^|\n)Steps: \d+, Sampler: /;

interface GeneratorHit {
  generator: string;
  where: string;
  excerpt: string;
}

const excerpt = (s: string): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
};

/** Generator fingerprints, after the keys each tool is documented to write (sd-parsers, tool sources). */
export function findGenerator(d: MetadataDetails): GeneratorHit | null {
  const t = d.text;
  if (d.stealth) {
    // Only Stable Diffusion front-ends write this; its payload is A1111's `parameters` text (or a
    // JSON object of ComfyUI chunks in the ComfyUI fork).
    const where = `stealth PNG info in the ${d.stealth.mode === 'alpha' ? "alpha channel's" : 'RGB channels\''} lowest bits${d.stealth.compressed ? ' (gzip)' : ''}`;
    const comfy = /"class_type"|"nodes"/.test(d.stealth.text);
    // Cite the settings line (Steps, Sampler, Seed, Model…) when there is one: that is the evidence.
    const settings = /(?:^|\n)(Steps: \d+, Sampler: [^\n]*)/.exec(d.stealth.text)?.[1];
    const cited = settings ? `${excerpt(d.stealth.text.split('\n')[0]!)} … ${settings.length > 200 ? `${settings.slice(0, 197)}…` : settings}` : excerpt(d.stealth.text);
    return { generator: comfy ? 'ComfyUI (stealth PNG info)' : 'AUTOMATIC1111 Stable Diffusion web UI (stealth PNG info)', where, excerpt: cited };
  }
  // Every value of a key (a key may repeat; a decoy first value must not hide a later one), whole
  // (a ComfyUI workflow can be longer than the excerpt text in `text`).
  const vals = (k: string): string[] => d.textAll[k] ?? [];
  // ComfyUI's prompt and workflow are JSON objects: only values that look like one are parsed,
  // and at most the first four of a key (each ≤ 1 MiB), so parse work stays bounded.
  const jsonValue = (k: string, ok: (j: object) => boolean): string | undefined =>
    vals(k)
      .filter((v) => v.trimStart().startsWith('{'))
      .slice(0, 4)
      .find((v) => {
        const j = isJson(v);
        return !!j && typeof j === 'object' && ok(j);
      });
  const fooocus = vals('parameters').find((v) => /fooocus/i.test(v));
  if (t.fooocus_scheme || fooocus)
    return { generator: 'Fooocus', where: 'PNG text "parameters"/"fooocus_scheme"', excerpt: excerpt(fooocus ?? t.fooocus_scheme ?? '') };
  const a1111 = vals('parameters').find((v) => A1111.test(v));
  if (a1111) return { generator: 'AUTOMATIC1111 Stable Diffusion web UI', where: 'PNG text chunk "parameters"', excerpt: excerpt(a1111) };
  if (d.userComment && A1111.test(d.userComment))
    return { generator: 'AUTOMATIC1111 Stable Diffusion web UI', where: 'EXIF UserComment', excerpt: excerpt(d.userComment) };
  const isNode = (n: unknown): boolean => !!n && typeof n === 'object' && ('class_type' in (n as object) || 'inputs' in (n as object));
  const prompt = jsonValue('prompt', (j) => Object.values(j).some(isNode));
  const workflow = jsonValue('workflow', (j) => 'nodes' in j);
  if (prompt || workflow)
    return { generator: 'ComfyUI', where: `PNG text chunk${prompt && workflow ? 's "prompt" and "workflow"' : prompt ? ' "prompt"' : ' "workflow"'}`, excerpt: excerpt(prompt ?? workflow!) };
  if (t.Dream || t['sd-metadata'] || t.invokeai_metadata || t.invokeai_graph)
    return {
      generator: 'InvokeAI',
      where: `PNG text chunk "${t.Dream ? 'Dream' : t['sd-metadata'] ? 'sd-metadata' : t.invokeai_metadata ? 'invokeai_metadata' : 'invokeai_graph'}"`,
      excerpt: excerpt(t.Dream ?? t['sd-metadata'] ?? t.invokeai_metadata ?? t.invokeai_graph ?? ''),
    };
  const sw = [t.Software, d.software, d.creatorTool].filter((s): s is string => !!s);
  const novelComment = vals('Comment').find((v) => /"uc"\s*:/.test(v) && /"sampler"\s*:/.test(v));
  if (sw.some((s) => /novelai/i.test(s)) || novelComment)
    return { generator: 'NovelAI', where: 'PNG text "Software"/"Comment"', excerpt: excerpt(novelComment ?? t.Comment ?? t.Software ?? '') };
  // Whole words only, and the names that are also ordinary words (flux, imagen, firefly, ideogram)
  // only with the qualifier the products carry: "Reflux of the tide", "Influx", "Randall Evans" or
  // Spanish "imagen" must not read as a generator (each would be a 0.95 deepfake signal).
  const named =
    /\b(midjourney|nijijourney|dall[·-]?e(?:[\s-]?\d)?|stable[\s-]diffusion|sdxl|adobe firefly|firefly image(?: model)?(?:\s?\d)?|imagen[\s-]?\d|bing image creator|leonardo\.ai|ideogram(?:\.ai|[\s-]?\d)|flux(?:\.1|[\s-](?:1|dev|schnell|pro)\b))/i;
  for (const s of [...sw, ...vals('Description'), ...vals('Title'), d.userComment ?? '']) {
    const m = named.exec(s);
    // The excerpt around the match, not the value's start (a long text names it further on).
    if (m) return { generator: m[1]!, where: 'Software/Description text', excerpt: excerpt(s.slice(Math.max(0, m.index - 30), m.index + 50)) };
  }
  return null;
}

/** IPTC source types that say a trained model made the content (not CGI or algorithmic art). */
const AI_DECLARATIONS = new Set(['trainedAlgorithmicMedia', 'compositeWithTrainedAlgorithmicMedia']);

/**
 * The file itself declares AI generation: a generator named in its metadata, or a
 * trainedAlgorithmicMedia / compositeWithTrainedAlgorithmicMedia source type (XMP/IPTC or a C2PA
 * action). Such a file is `manipulated` (verify.ts judge): it says so of itself.
 */
export function declaresAi(s: Signal): boolean {
  if (s.kind !== 'synthetic' || !s.generator || s.probability <= 0) return false;
  if (s.analyzer === 'c2pa.digital_source_type') return AI_DECLARATIONS.has(s.declaredType ?? '');
  if (s.analyzer === 'metadata.ai_generator') return !(s.generator in AI_SOURCE_TYPES) || AI_DECLARATIONS.has(s.generator);
  return false;
}

/** Declared AI generator in file metadata (tool-specific keys or IPTC DigitalSourceType). */
export function generatorSignal(d: MetadataDetails): Signal {
  const hit = findGenerator(d);
  if (hit)
    return {
      analyzer: 'metadata.ai_generator',
      kind: 'synthetic',
      probability: 0.95,
      confidence: 0.9,
      finding: `AI generator metadata: ${hit.generator} (${hit.where}: "${hit.excerpt}")`,
      flag: 'deepfake',
      generator: hit.generator,
    };
  if (d.digitalSourceType) {
    const name = sourceTypeName(d.digitalSourceType);
    const p = AI_SOURCE_TYPES[name as keyof typeof AI_SOURCE_TYPES];
    if (p !== undefined)
      return {
        analyzer: 'metadata.ai_generator',
        kind: 'synthetic',
        probability: p,
        confidence: 0.85,
        finding: `XMP/IPTC DigitalSourceType declares ${name}: the creator marked this image as ${name === 'trainedAlgorithmicMedia' ? 'generated by a trained AI model' : 'containing AI-generated or synthetic parts'}`,
        flag: 'deepfake',
        generator: name,
      };
    if (name === 'digitalCapture')
      return {
        analyzer: 'metadata.ai_generator',
        kind: 'capture',
        probability: 0.3,
        confidence: 0.3,
        finding: 'XMP/IPTC DigitalSourceType declares digitalCapture (a self-declaration; not verified)',
      };
  }
  return {
    analyzer: 'metadata.ai_generator',
    kind: 'synthetic',
    probability: 0,
    confidence: 0.3,
    finding: `No AI-generator metadata (A1111, ComfyUI, InvokeAI, NovelAI, Fooocus keys; IPTC DigitalSourceType) found${d.textNotChecked ? ` where it could be read (${d.textNotChecked})` : ''}; absence proves nothing, metadata is easily removed`,
  };
}

/** AI declared in a C2PA manifest's actions (`digitalSourceType` on c2pa.created and friends). */
export function c2paSourceSignal(w: Watermark | null): Signal | null {
  if (!w || w.validation_state === 'unreadable') return null;
  let best: { name: string; p: number; agent: string | null; action: string } | null = null;
  for (const a of w.actions) {
    if (!a.digital_source_type) continue;
    const name = sourceTypeName(a.digital_source_type);
    const p = AI_SOURCE_TYPES[name as keyof typeof AI_SOURCE_TYPES];
    if (p !== undefined && (!best || p > best.p)) best = { name, p, agent: a.software_agent, action: a.action };
  }
  if (!best) return null;
  // A signature that does not verify still tells us what the file claims, but weaker.
  const confidence = w.validation_state === 'invalid' ? 0.6 : 0.95;
  return {
    analyzer: 'c2pa.digital_source_type',
    kind: 'synthetic',
    probability: w.validation_state === 'invalid' ? best.p * 0.8 : best.p,
    confidence,
    finding: `C2PA manifest action ${best.action} declares digitalSourceType ${best.name}${best.agent ? ` (software agent: ${best.agent})` : ''}`,
    flag: 'deepfake',
    generator: best.agent ?? best.name,
    declaredType: best.name,
  };
}

/** Pixel editors, with a weight: content editors can paste and clone; raw developers mostly adjust tone. */
const EDITORS: Array<[RegExp, string, number]> = [
  [/photoshop/i, 'Adobe Photoshop', 0.4],
  [/gimp/i, 'GIMP', 0.4],
  [/affinity/i, 'Affinity Photo', 0.4],
  [/pixelmator/i, 'Pixelmator', 0.4],
  [/paint\.?net/i, 'Paint.NET', 0.4],
  [/photopea/i, 'Photopea', 0.4],
  [/snapseed/i, 'Snapseed', 0.35],
  [/facetune/i, 'Facetune', 0.45],
  [/meitu|picsart|canva/i, 'a mobile/online editor', 0.4],
  [/paint ?shop|corel|acdsee/i, 'a desktop editor', 0.35],
  [/lightroom|capture one|darktable|rawtherapee|luminar|dxo/i, 'a raw developer', 0.2],
];

/** Editing software named in EXIF Software, XMP CreatorTool or XMP history, or a Photoshop IRB segment. */
export function editingSoftwareSignal(d: MetadataDetails, jpeg: JpegStructure | null): Signal {
  const found: string[] = [];
  let p = 0;
  const consider = (label: string, value: string | null): void => {
    if (!value) return;
    for (const [re, name, w] of EDITORS)
      if (re.test(value)) {
        found.push(`${label} "${value.slice(0, 60)}" (${name})`);
        p = Math.max(p, w);
        return;
      }
  };
  consider('EXIF Software', d.software);
  consider('XMP CreatorTool', d.creatorTool);
  for (const h of d.history.slice(0, 5)) consider('XMP history', h);
  // An APP13 "Photoshop 3.0" block is also how IPTC captions are stored, so metadata tools
  // (exiftool, newsroom captioning, c2pa test generators) write it without touching pixels: weak.
  if (jpeg?.segments.includes('APP13:Photoshop') && !found.some((f) => /Photoshop/.test(f))) {
    found.push('an APP13 Photoshop/IPTC resource block (also written by captioning tools)');
    p = Math.max(p, 0.1);
  }
  if (!found.length)
    return {
      analyzer: 'metadata.editing_software',
      kind: 'manipulation',
      probability: 0,
      confidence: 0.3,
      finding: 'No editing software named in EXIF Software, XMP CreatorTool/history or Photoshop segments',
    };
  return {
    analyzer: 'metadata.editing_software',
    kind: 'manipulation',
    probability: p,
    confidence: p >= 0.3 ? 0.7 : 0.4,
    group: 'reencoding',
    finding:
      p >= 0.3
        ? `Saved by a pixel editor after capture: ${found.join('; ')}. The pixels are not the camera's originals (a resize or tone change looks the same here as a content edit; editing is not proof of deception)`
        : `Processed after capture: ${found.join('; ')}. Tone/raw development or metadata writing, weak evidence of any content change`,
  };
}

/** EXIF date "YYYY:MM:DD HH:MM:SS[+hh:mm]" → epoch ms (offset-less dates are read as UTC; compared with each other only). */
export function exifDateMs(s: string | null): number | null {
  if (!s) return null;
  const m = /^(\d{4})[:-](\d\d)[:-](\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(s);
  if (!m) return null;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return Number.isFinite(ms) && +m[1]! > 1900 ? ms : null;
}

/** Camera metadata present and its timestamps in a possible order. */
export function timestampSignal(d: MetadataDetails, now: Date, c2paSignedAt: string | null): Signal | null {
  const original = exifDateMs(d.exif.datetime_original);
  const modified = exifDateMs(d.modifyDate);
  const problems: string[] = [];
  // Offset-less EXIF times are local; allow a day either way before calling one "in the future".
  if (original !== null && original > now.getTime() + 86_400_000) problems.push(`DateTimeOriginal ${d.exif.datetime_original} is in the future`);
  if (original !== null && modified !== null && modified < original - 60_000)
    problems.push(`ModifyDate ${d.modifyDate} is earlier than DateTimeOriginal ${d.exif.datetime_original}`);
  const signed = c2paSignedAt ? Date.parse(c2paSignedAt) : NaN;
  if (original !== null && Number.isFinite(signed) && signed < original - 86_400_000)
    problems.push(`the C2PA signature (${c2paSignedAt}) predates the capture time ${d.exif.datetime_original}`);
  if (problems.length)
    return {
      analyzer: 'metadata.timestamps',
      kind: 'manipulation',
      // An impossible order is a real inconsistency, but wrong camera clocks produce some of them.
      probability: 0.35,
      confidence: 0.5,
      finding: `Inconsistent timestamps: ${problems.join('; ')}`,
      flag: 'inconsistent_timestamps',
    };
  // Transfer tools, viewers that rotate losslessly and captioning all update ModifyDate (the
  // Nikon COOLPIX fixtures were rewritten by "Nikon Transfer" 10 days after capture): routine, weak.
  if (original !== null && modified !== null && modified > original + 60_000)
    return {
      analyzer: 'metadata.timestamps',
      kind: 'manipulation',
      probability: 0.05,
      confidence: 0.3,
      group: 'reencoding',
      finding: `ModifyDate ${d.modifyDate} is later than DateTimeOriginal ${d.exif.datetime_original}: the file was rewritten after capture (routine for transfer, rotation and captioning tools)`,
    };
  return null;
}

/** Camera make/model/time written, or the EXIF block missing where a camera would have written one. */
export function cameraMetadataSignal(d: MetadataDetails, format: string): Signal {
  const { make, model, datetime_original } = d.exif;
  if (make && model && datetime_original)
    return {
      analyzer: 'metadata.camera',
      kind: 'capture',
      probability: 0.6,
      confidence: 0.4,
      finding: `Camera metadata present and complete: ${make} ${model}, captured ${datetime_original}${d.exif.gps ? `, GPS ${d.exif.gps.lat}, ${d.exif.gps.lon}` : ''} (EXIF can be forged; this is consistency, not proof)`,
    };
  const cameraFormat = format === 'jpeg' || format === 'heif' || format === 'tiff' || format === 'avif';
  if (!d.hasExif && cameraFormat)
    return {
      analyzer: 'metadata.camera',
      kind: 'manipulation',
      probability: 0.1,
      confidence: 0.3,
      finding: `No EXIF camera metadata in a ${format.toUpperCase()} file: removed by an editor or a sharing platform (routine on social media), or never written`,
      flag: 'metadata_stripped',
    };
  return {
    analyzer: 'metadata.camera',
    kind: 'capture',
    probability: 0,
    confidence: 0.2,
    finding: d.hasExif
      ? `Partial camera metadata (make: ${make ?? 'none'}, model: ${model ?? 'none'}, capture time: ${datetime_original ?? 'none'})`
      : `No camera metadata; ${format.toUpperCase()} files from screenshots, renders and generators usually carry none`,
  };
}
