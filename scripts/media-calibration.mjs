// Media calibration table: runs the BUILT media verification (npx tsc -p tsconfig.build.json) over
// the public fixture folders and prints, per file, authenticity, trust, deepfake, C2PA state, what
// could not be checked and the verdict's reason as a Markdown table (pasted into docs/media.md),
// then the false-suspicion rate per folder: the share of UNEDITED camera photos (issue 13's
// definition: a camera make in EXIF, no editor in Software / CreatorTool / XMP history) and of
// valid C2PA files that declare neither AI nor edits, that come out suspicious or manipulated.
// Offline; no store, no trust anchors.
// Usage: node scripts/media-calibration.mjs [fixtures dir, default ../shared/fixtures]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const fixtures = resolve(process.argv[2] ?? join(root, '..', 'shared', 'fixtures'));
if (!existsSync(fixtures)) {
  console.error(`No fixtures at ${fixtures}: nothing to calibrate against`);
  process.exit(1);
}
const { verifyMedia } = await import(join(root, 'dist/engine/media/verify.js'));
const { readMetadataDetails } = await import(join(root, 'dist/engine/media/metadata.js'));
const ports = { clock: { now: () => new Date() }, config: {}, http: null, fetchInput: null };
const folders = ['images/camera', 'images/ai-metadata', 'images/malformed', 'c2pa', 'c2pa/public-testfiles'];
/** Software that edits pixels or re-saves them (not camera firmware or transfer tools). */
const EDITOR = /photoshop|gimp|lightroom|affinity|paint\.net|pixelmator|snapseed|picasa|photo gallery|capture one|darktable|rawtherapee|acdsee|paintshop|corel|photoscape|luminar|canva/i;
const AI_OR_EDIT_ACTION = /^c2pa\.(edited|color_adjustments|cropped|filtered|drawing|placed|removed|resized|composited)/;

const rows = [];
console.log('| file | class | authenticity | trust | deepfake | C2PA | not checked | why |\n|---|---|---|---:|---:|---|---|---|');
for (const folder of folders) {
  const dir = join(fixtures, folder);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) {
    // Sub-folders are listed on their own (c2pa/public-testfiles); c2patool's reports are not media.
    if (name === 'trust' || name.endsWith('.md') || name.endsWith('.json') || !statSync(join(dir, name)).isFile()) continue;
    const file = readFileSync(join(dir, name));
    const d = await readMetadataDetails(file).catch(() => null);
    const editor = d && [d.software, d.creatorTool, ...d.history].some((s) => s && EDITOR.test(s));
    // A file of the malformed folder that still meets the definition of an unedited camera
    // photo (a make, no editor named) is counted beside the honest sets too: the held-out camera
    // sets are chosen by that definition, not by folder.
    const cameraByMetadata = folder === 'images/malformed' && Boolean(d?.exif.make) && !editor;
    let cls = folder === 'images/malformed' ? 'malformed' : folder === 'images/ai-metadata' ? 'ai' : d?.exif.make ? (editor ? 'camera, edited' : 'camera, unedited') : editor ? 'edited' : 'other';
    let row;
    try {
      const r = await verifyMedia({ file: file.toString('base64'), check_deepfakes: true, check_provenance: false, check_watermarks: true }, ports, {});
      const w = r.watermark;
      if (folder === 'c2pa' && w && (w.validation_state === 'valid' || w.validation_state === 'trusted') && !w.actions.some((a) => AI_OR_EDIT_ACTION.test(a.action) || /AlgorithmicMedia|compositeSynthetic/.test(a.digital_source_type ?? '')) && r.deepfake_score < 0.5)
        cls = 'c2pa valid, no AI/edits declared';
      const why = r.evidence[0].finding.replace(/^[a-z_]+: /, '').replace(/; manipulation probability.*$/, '').replace(/\|/g, '/').slice(0, 110);
      const notChecked = (r.warnings ?? []).find((x) => x.startsWith('Not checked: '))?.slice(13, 70).replace(/\|/g, '/') ?? '';
      row = [cls, r.authenticity, r.trust_score.toFixed(3), r.deepfake_score.toFixed(3), w?.validation_state ?? '—', notChecked, why];
      rows.push({ folder, cls, cameraByMetadata, partial: Boolean(notChecked), authenticity: r.authenticity });
    } catch (err) {
      row = [cls, `error ${err.code ?? ''}`.trim(), '—', '—', '—', '', String(err.message).slice(0, 80).replace(/\|/g, '/')];
      rows.push({ folder, cls, cameraByMetadata, authenticity: `error ${err.code ?? ''}` });
    }
    console.log(`| ${folder}/${name} | ${row.join(' | ')} |`);
  }
}

const flagged = (a) => a === 'suspicious' || a === 'manipulated';
console.log('\n| set | files | suspicious or manipulated | false-suspicion rate |\n|---|---:|---:|---:|');
for (const cls of ['camera, unedited', 'c2pa valid, no AI/edits declared']) {
  const set = rows.filter((r) => r.cls === cls);
  const bad = set.filter((r) => flagged(r.authenticity)).length;
  console.log(`| ${cls} | ${set.length} | ${bad} | ${set.length ? ((100 * bad) / set.length).toFixed(1) : '—'} % |`);
}
const all = rows.filter((r) => r.cls === 'camera, unedited' || r.cls === 'c2pa valid, no AI/edits declared');
const allBad = all.filter((r) => flagged(r.authenticity)).length;
console.log(`| all honest files | ${all.length} | ${allBad} | ${all.length ? ((100 * allBad) / all.length).toFixed(1) : '—'} % |`);
// Only files whose analysis ran in full: an undecodable one is at best suspicious by rule.
const byMetadata = rows.filter((r) => r.cameraByMetadata && !r.partial && !r.authenticity.startsWith('error'));
if (byMetadata.length) {
  const bad = byMetadata.filter((r) => flagged(r.authenticity)).length;
  console.log(`| camera make, no editor named, in images/malformed (analysed in full) | ${byMetadata.length} | ${bad} | ${((100 * bad) / byMetadata.length).toFixed(1)} % |`);
}
const broken = rows.filter((r) => r.cls === 'malformed');
console.log(`\nmalformed: ${broken.length} files; likely_authentic or authentic: ${broken.filter((r) => r.authenticity === 'likely_authentic' || r.authenticity === 'authentic').length} (decodable ones with intact pixels may be; none undecodable or too small may)`);
