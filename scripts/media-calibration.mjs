// Media calibration table: runs the BUILT media verification (npx tsc -p tsconfig.build.json) over
// the public fixture folders and prints file → authenticity, trust, deepfake and the verdict's
// reason as a Markdown table (pasted into docs/media.md). Offline; no store, no trust anchors.
// Usage: node scripts/media-calibration.mjs [fixtures dir, default ../shared/fixtures]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const fixtures = resolve(process.argv[2] ?? join(root, '..', 'shared', 'fixtures'));
if (!existsSync(fixtures)) {
  console.error(`No fixtures at ${fixtures}: nothing to calibrate against`);
  process.exit(1);
}
const { verifyMedia } = await import(join(root, 'dist/engine/media/verify.js'));
const ports = { clock: { now: () => new Date() }, config: {}, http: null, fetchInput: null };
const folders = ['images/camera', 'images/ai-metadata', 'c2pa'];

console.log('| file | authenticity | trust | deepfake | C2PA | why |\n|---|---|---:|---:|---|---|');
for (const folder of folders) {
  const dir = join(fixtures, folder);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) {
    if (name === 'trust' || name.endsWith('.md')) continue;
    const file = readFileSync(join(dir, name));
    let row;
    try {
      const r = await verifyMedia({ file: file.toString('base64'), check_deepfakes: true, check_provenance: false, check_watermarks: true }, ports, {});
      const why = r.evidence[0].finding.replace(/^[a-z_]+: /, '').replace(/; manipulation probability.*$/, '').replace(/\|/g, '/');
      row = [r.authenticity, r.trust_score.toFixed(3), r.deepfake_score.toFixed(3), r.watermark?.validation_state ?? '—', why];
    } catch (err) {
      row = [`error ${err.code ?? ''}`.trim(), '—', '—', '—', String(err.message).slice(0, 80)];
    }
    console.log(`| ${folder}/${name} | ${row.join(' | ')} |`);
  }
}
