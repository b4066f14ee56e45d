/** Media report: the image with switchable heat maps and marked regions, EXIF thumbnail, C2PA timeline. */
import type { MediaResult, PixelRegion, Watermark } from '../api/results.js';
import { notMeasured } from '../api/not-measured.js';
import { isoTime, isoTimesIn, isVideoFormat } from '../output/trust-words.js';
import { AUTHORITY_NOTE, badge, dimensionsSection, evidenceTable, headline, warningsSection, type Tone } from './common.js';
import { html, trusted, type Html } from './html.js';
import type { C2paThumbnails } from './c2pa-thumbnails.js';
import { VIRIDIS_CSS, type Photo } from './images.js';

export interface MediaAssets {
  photo: Photo | null;
  /** Why there is no photo (no input given, URL input, undecodable). */
  photoNote: string | null;
  gridOverlay: string | null;
  noiseOverlay: string | null;
  thumbnail: string | null;
  /** Thumbnails stored in the C2PA manifest (only when the input file was given). */
  c2pa: C2paThumbnails | null;
  /** A video's sampled frames as JPEG data URIs by frame index (input given and ffmpeg on PATH). */
  frames?: Map<number, string> | null;
}

const TONE: Record<MediaResult['authenticity'], Tone> = { authentic: 'good', likely_authentic: 'good', suspicious: 'warn', manipulated: 'bad' };
const MEANING: Record<MediaResult['authenticity'], string> = {
  authentic: 'A valid Content Credentials manifest from a trusted signer records a capture with no edits, and nothing in the pixels contradicts it.',
  likely_authentic: 'Nothing found suggests editing or generation; this is not proof of authenticity.',
  suspicious: 'Signals of editing or generation were found (or the analysis could not run in full): read the evidence before relying on it.',
  manipulated: 'Cryptographic proof of a change after signing: the Content Credentials no longer match the file.',
};

const pct = (v: number, of: number): string => `${((100 * v) / Math.max(1, of)).toFixed(3)}%`;
const boxStyle = (r: PixelRegion, W: number, H: number): Html => trusted(`left:${pct(r.x, W)};top:${pct(r.y, H)};width:${pct(r.width, W)};height:${pct(r.height, H)}`);

function figure(r: MediaResult, a: MediaAssets): Html {
  const W = r.metadata.width || 1;
  const H = r.metadata.height || 1;
  const f = r.forensics;
  const regions = r.evidence.filter((e) => e.region);
  const tileBox: PixelRegion | null = f ? { x: f.analysed.x, y: f.analysed.y, width: f.cols * f.tile, height: f.rows * f.tile } : null;
  const gridMarked = f?.jpeg_grid?.marked.length ?? 0;
  const noiseMarked = f?.noise?.marked.length ?? 0;
  const base = a.photo
    ? html`<img class="photo" src="${trusted(a.photo.uri)}" width="${a.photo.width}" height="${a.photo.height}" alt="The analysed image, ${W}×${H} pixels (shown at ${a.photo.width}×${a.photo.height}, stored orientation)">`
    : html`<div class="blank" style="${trusted(`aspect-ratio:${W}/${H};width:${Math.min(960, W)}px`)}" role="img" aria-label="Image not embedded: ${a.photoNote ?? 'not available'}"></div>`;
  const overlays = [
    a.gridOverlay && tileBox ? html`<img class="overlay ov-grid" src="${trusted(a.gridOverlay)}" style="${boxStyle(tileBox, W, H)}" alt="Heat map of foreign JPEG block-grid strength per 64×64 tile; ${gridMarked} tile(s) marked">` : '',
    a.noiseOverlay && tileBox ? html`<img class="overlay ov-noise" src="${trusted(a.noiseOverlay)}" style="${boxStyle(tileBox, W, H)}" alt="Heat map of noise inconsistency (cleaner than the image's noise model) per tile; ${noiseMarked} tile(s) marked">` : '',
    regions.map((e, i) => html`<div class="region ov-region" style="${boxStyle(e.region!, W, H)}" role="img" aria-label="Region ${i + 1} named by ${e.source}: ${e.region!.width}×${e.region!.height} pixels at ${e.region!.x},${e.region!.y}"><span class="tag${i % 2 ? ' below' : ''}">Region ${i + 1}: ${e.source.replace(/^forensics\./, '')}</span></div>`),
  ];
  const toggles = [
    // Off until asked for: every tile has a score, so an untouched photo would be painted over
    // while the text says no region stands out; named regions (findings) stay on.
    a.gridOverlay ? html`<input type="checkbox" id="ov-grid"><label for="ov-grid"> Foreign JPEG grid (per tile)</label> ` : '',
    a.noiseOverlay ? html`<input type="checkbox" id="ov-noise"><label for="ov-noise"> Noise inconsistency (per tile)</label> ` : '',
    regions.length ? html`<input type="checkbox" id="ov-region" checked><label for="ov-region"> Named regions (${regions.length})</label>` : '',
  ];
  return html`${toggles.some((t) => t) ? html`<p class="small no-print" style="margin:6px 0 2px">Overlays (switch on and off; no JavaScript needed):</p>` : ''}
${toggles}
<div class="media-view cols">
<div class="figure" style="${trusted(a.photo ? `width:${a.photo.width}px` : 'width:100%')}">${base}${overlays}</div>
${a.thumbnail ? html`<figure class="thumb"><img src="${trusted(a.thumbnail)}" alt="The EXIF thumbnail embedded in the file"><figcaption class="small">EXIF thumbnail written with the photo. The analysis found that it <strong>differs</strong> from the main image: compare them.</figcaption></figure>` : ''}
</div>
<div class="legend"><span>Tile score 0</span><span class="ramp" style="${trusted(`background:${VIRIDIS_CSS}`)}" role="img" aria-label="Colour scale from dark purple (0) to yellow (1)"></span><span>1</span><span class="muted">· brighter and more opaque = stronger; marked tiles nearly opaque; regions: dashed vermillion outline</span></div>
${a.photo ? '' : html`<p class="muted">Image not embedded: ${a.photoNote ?? 'not available'}. Overlays are drawn on a placeholder of the image's size.</p>`}
${regions.length ? html`<h3>Regions named by findings</h3><ol>${regions.map((e) => html`<li><strong>${e.source}</strong>: ${e.region!.width}×${e.region!.height} px at (${e.region!.x}, ${e.region!.y}) — ${e.summary ?? e.finding}</li>`)}</ol>` : html`<p>No finding names a region of the image.</p>`}
${f ? html`<p class="small muted">Pixel analyses looked at ${f.analysed.width}×${f.analysed.height} px at (${f.analysed.x}, ${f.analysed.y}) in ${f.cols}×${f.rows} tiles of ${f.tile}×${f.tile} px. Grid score: how far a tile's strongest foreign 8×8 block-grid phase stands out (0.3 = threshold). Noise score: how much cleaner the tile is than the image's brightness-dependent noise model (0.5 = outlier threshold).</p>` : html`<p class="muted">No per-tile data: the pixels were not analysed (video, undecodable codec, or an image too small).</p>`}`;
}

const STATE_TONE: Record<string, Tone> = { trusted: 'good', valid: 'good', invalid: 'bad', unreadable: 'warn' };

const thumbImg = (uri: string | null | undefined, alt: string): Html | string =>
  uri ? html`<img class="c2pa-thumb" src="${trusted(uri)}" alt="${alt}">` : '';

function c2paTimeline(w: Watermark | null, thumbs: C2paThumbnails | null): Html {
  if (!w) return html`<p>No Content Credentials (C2PA manifest) in the file.</p>`;
  const items: Html[] = [];
  w.ingredients.forEach((ing, i) => {
    const t = thumbs?.ingredients[i];
    items.push(html`<li class="${ing.validation_state && /fail|invalid/i.test(ing.validation_state) ? 'bad' : ''}">${thumbImg(t, `Thumbnail of the ingredient ${ing.title ?? 'untitled'}, stored in the manifest`)}<strong>Ingredient</strong> ${ing.title ?? '(untitled)'} <span class="muted">${ing.format ?? ''}</span> · relationship ${ing.relationship ?? 'unknown'} · validation ${ing.validation_state ?? 'not stated'}${t ? '' : html`<div class="small muted">${thumbs ? 'No thumbnail stored for this ingredient.' : 'Thumbnails are shown when the report is made with the input file.'}</div>`}</li>`);
  });
  items.push(html`<li class="${STATE_TONE[w.validation_state] === 'bad' ? 'bad' : STATE_TONE[w.validation_state] === 'good' ? 'good' : 'warn'}">${thumbImg(thumbs?.manifest, 'Thumbnail of the signed asset, stored in the manifest')}<strong>Manifest signed</strong> ${w.signed_at ?? '(no signing time)'} by ${w.signer ?? 'an unknown signer'} ${badge(w.validation_state, STATE_TONE[w.validation_state] ?? 'neutral')}<div class="small">Claim generator: ${w.claim_generator ?? 'not stated'}${w.remote_manifest_url ? html` · remote manifest: <span class="mono">${w.remote_manifest_url}</span>` : ''}</div></li>`);
  for (const act of w.actions)
    items.push(html`<li><strong>Action</strong> ${act.action}${act.when ? html` at ${act.when}` : ''}<div class="small muted">${act.software_agent ? html`software: ${act.software_agent}` : ''}${act.digital_source_type ? html` · source type: ${act.digital_source_type.replace(/^.*\//, '')}` : ''}</div></li>`);
  return html`<ol class="timeline">${items}</ol>
${w.status.length ? html`<table><thead><tr><th scope="col">Validation status</th><th scope="col">Kind</th><th scope="col">Explanation</th></tr></thead><tbody>${w.status.map((s) => html`<tr><td class="mono">${s.code}</td><td>${badge(s.kind, s.kind === 'failure' ? 'bad' : s.kind === 'success' ? 'good' : 'neutral')}</td><td>${s.explanation ?? ''}</td></tr>`)}</tbody></table>` : ''}`;
}

/**
 * A video's sampled frames in time order, each with its time, keyframe mark and score (how much
 * it stands out: its own forensic finding and any flagged range it lies in), then the flagged
 * ranges. Frames that stand out (score ≥ 0.3) are outlined.
 */
function frameStrip(r: MediaResult, a: MediaAssets): Html {
  const v = r.video!;
  if (!v.pixels_analysed)
    return html`<p><strong>Pixels not analysed:</strong> no video decoder (ffmpeg) was available, so no frame was read; the verdict rests on the container's metadata and Content Credentials.</p>`;
  const cells = v.sampled.map((s) => {
    const uri = a.frames?.get(s.index);
    const hot = s.score >= 0.3;
    return html`<figure class="frame${hot ? ' hot' : ''}">${uri ? html`<img src="${trusted(uri)}" alt="Frame ${s.index} at ${s.time_s.toFixed(2)} s">` : html`<div class="blank" role="img" aria-label="Frame ${s.index} not embedded"></div>`}<figcaption class="small">${s.time_s.toFixed(2)} s · #${s.index}${s.keyframe ? ' · key' : ''}<br><span class="ramp-bar"><span style="${trusted(`width:${Math.round(s.score * 100)}%`)}"></span></span> ${s.score.toFixed(2)}</figcaption></figure>`;
  });
  return html`<p class="small">Decoded with ${v.decoder ?? 'an unknown decoder'}: ${v.frames_decoded} of ${v.frames_total} frames${v.fps ? ` at ${v.fps} fps` : ''}, ${v.keyframes} keyframes; ${v.sampled.length} frames sampled for the image forensics. Score per frame: 0 = nothing stands out, outlined at 0.3 or more.${a.frames ? '' : ' Frame pictures are shown when the report is made with the input file and ffmpeg is installed.'}</p>
<div class="frame-strip">${cells}</div>
${v.ranges.length ? html`<h3>Frames and times that stand out</h3><ol>${v.ranges.map((x) => html`<li><strong>${x.start_s.toFixed(2)}${x.end_s !== x.start_s ? html`–${x.end_s.toFixed(2)}` : ''} s</strong> (frames ${x.first_frame}–${x.last_frame}): ${x.analyzer}, probability ${x.probability.toFixed(2)}</li>`)}</ol>` : html`<p>No frame or time range stands out.</p>`}`;
}

export function mediaBody(r: MediaResult, a: MediaAssets, subject: string): Html[] {
  const ex = r.metadata.exif;
  const video = isVideoFormat(r.metadata.format);
  const deepfakeWhy = notMeasured(r.warnings).get('deepfake_score');
  const deepfake = deepfakeWhy ? `Deepfake score not measured (${deepfakeWhy}).` : `Deepfake score ${r.deepfake_score.toFixed(2)}.`;
  return [
    headline({ title: 'media', subject, verdict: r.authenticity, tone: TONE[r.authenticity], trust: r.trust_score, meaning: `${MEANING[r.authenticity]} ${deepfake}` }),
    warningsSection(r.warnings),
    dimensionsSection(r.dimensions, r.dimension_producers, r.warnings),
    r.video
      ? html`<section aria-labelledby="h-frames"><h2 id="h-frames">Video frames</h2>${frameStrip(r, a)}</section>`
      : video
        ? html`<section aria-labelledby="h-image"><h2 id="h-image">Video</h2><p class="muted">Video pixels not analysed, so there are no forensic overlays.</p></section>`
        : html`<section aria-labelledby="h-image"><h2 id="h-image">Image and forensic overlays</h2>${figure(r, a)}</section>`,
    html`<section aria-labelledby="h-c2pa"><h2 id="h-c2pa">Content Credentials (C2PA) chain</h2>${c2paTimeline(r.watermark, a.c2pa)}</section>`,
    html`<section aria-labelledby="h-meta"><h2 id="h-meta">Metadata and provenance</h2>
<table><tbody>
<tr><th scope="row">Format</th><td>${video ? 'video' : 'image'} ${r.metadata.format}${r.metadata.width && r.metadata.height ? ` · ${r.metadata.width}×${r.metadata.height}` : ''}</td></tr>
<tr><th scope="row">Camera</th><td>${[ex.make, ex.model].filter(Boolean).join(' ') || 'not stated'}</td></tr>
<tr><th scope="row">${video ? 'Recorded' : 'Taken'}</th><td>${ex.datetime_original ? isoTime(ex.datetime_original) : 'not stated'}</td></tr>
<tr><th scope="row">GPS</th><td>${ex.gps ? `${ex.gps.lat}, ${ex.gps.lon}${ex.gps.alt !== null ? ` (alt ${ex.gps.alt} m)` : ''}` : 'none'}</td></tr>
<tr><th scope="row">Earliest known source</th><td>${r.provenance_source ?? 'unknown'}</td></tr>
</tbody></table>
${r.provenance.length ? html`<table><caption class="small" style="text-align:left">Where the file was seen before (index matches) and its own Content Credentials history (signing, ingredients)</caption><thead><tr><th scope="col">First seen</th><th scope="col">Where</th><th scope="col">Kind</th><th scope="col">Source</th></tr></thead><tbody>${r.provenance.map((p) => html`<tr><td>${p.first_seen}</td><td class="mono">${p.url}</td><td>${p.url.startsWith('c2pa:') ? 'its own Content Credentials' : 'earlier appearance'}</td><td>${p.source}</td></tr>`)}</tbody></table>` : ''}</section>`,
    html`<section aria-labelledby="h-ev"><h2 id="h-ev">Evidence chain</h2>${AUTHORITY_NOTE}${evidenceTable(
      r.evidence.map((e) => ({ source: e.source, text: isoTimesIn(e.summary ?? e.finding), detail: isoTimesIn(e.finding), authority: e.authority_score })),
      'Evidence chain',
    )}</section>`,
  ];
}
