/**
 * The report's one inline stylesheet. Colours are the Okabe–Ito palette (distinguishable with the
 * common colour-vision deficiencies) and every state is also written out in words or a symbol, so
 * nothing depends on colour alone. Heat maps use viridis (images.ts). Print: no backgrounds lost
 * (print-color-adjust), toggles hidden, sections kept whole where possible.
 */
export const OKABE_ITO = {
  blue: '#0072B2',
  orange: '#E69F00',
  vermillion: '#D55E00',
  sky: '#56B4E9',
  green: '#009E73',
  yellow: '#F0E442',
  purple: '#CC79A7',
  grey: '#6b6b6b',
} as const;

export const CSS = `
:root { --good: ${OKABE_ITO.blue}; --warn: ${OKABE_ITO.orange}; --bad: ${OKABE_ITO.vermillion}; --muted: ${OKABE_ITO.grey}; --line: #d0d0d0; --bg2: #f4f4f4; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #111; margin: 0 auto; max-width: 1180px; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 1.6em; margin: 0.2em 0; } h2 { font-size: 1.25em; margin: 1.4em 0 0.5em; border-bottom: 2px solid var(--line); padding-bottom: 0.2em; } h3 { font-size: 1.05em; margin: 1em 0 0.4em; }
.mono, code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; word-break: break-all; }
.muted { color: var(--muted); } .small { font-size: 0.88em; }
.notice { border: 2px solid var(--warn); background: #fff6e0; padding: 8px 12px; margin: 8px 0; }
.headline { display: flex; flex-wrap: wrap; gap: 16px 32px; align-items: center; border: 1px solid var(--line); padding: 12px 16px; background: var(--bg2); }
.verdict { font-size: 1.5em; font-weight: 700; padding: 2px 12px; border: 3px solid currentColor; border-radius: 6px; }
.tone-good { color: var(--good); } .tone-warn { color: #9a6700; } .tone-bad { color: var(--bad); } .tone-neutral { color: #333; }
.bar { position: relative; height: 14px; background: #e6e6e6; border: 1px solid #bbb; min-width: 120px; }
.bar > span { position: absolute; left: 0; top: 0; bottom: 0; background: var(--good); }
.bar.tone-warn > span { background: var(--warn); } .bar.tone-bad > span { background: var(--bad); } .bar.tone-neutral > span { background: #5f6b78; }
.bar.hatched > span { background-image: repeating-linear-gradient(45deg, rgba(255,255,255,.45) 0 3px, transparent 3px 7px); }
.dims { display: grid; grid-template-columns: minmax(140px, 200px) minmax(120px, 1fr) 48px minmax(160px, 2fr); gap: 6px 12px; align-items: center; }
.dims .num { text-align: right; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { border: 1px solid var(--line); padding: 5px 8px; vertical-align: top; text-align: left; }
th { background: var(--bg2); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.agree td.mark { color: var(--good); } tr.disagree td.mark { color: var(--bad); }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; border: 1px solid currentColor; font-size: 0.85em; font-weight: 600; white-space: nowrap; }
details > summary { cursor: pointer; color: #333; }
blockquote { margin: 6px 0; padding: 4px 10px; border-left: 4px solid var(--line); background: #fafafa; }
mark { background: #ffe08a; padding: 0 2px; } mark.ai { background: #f6c9a8; outline: 1px solid var(--bad); }
.cols { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.figure { position: relative; display: inline-block; max-width: 100%; line-height: 0; border: 1px solid #999; background: #222; }
.figure img.photo { display: block; max-width: 100%; height: auto; }
.figure .blank { display: block; width: 100%; background: repeating-linear-gradient(45deg, #444 0 10px, #555 10px 20px); }
.figure .overlay { position: absolute; display: none; image-rendering: pixelated; image-rendering: crisp-edges; opacity: 0.85; pointer-events: none; }
.figure .region { position: absolute; display: none; border: 3px dashed ${OKABE_ITO.vermillion}; outline: 2px solid #fff; box-shadow: 0 0 0 4px rgba(0,0,0,.45); pointer-events: none; }
.figure .region .tag { position: absolute; left: -3px; top: -1.9em; line-height: 1.4; background: ${OKABE_ITO.vermillion}; color: #fff; font-size: 12px; padding: 1px 6px; white-space: nowrap; }
.figure .region .tag.below { top: auto; bottom: -1.9em; background: #000; }
.toggles { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0; }
.toggles label { cursor: pointer; }
#ov-grid:checked ~ .media-view .ov-grid, #ov-noise:checked ~ .media-view .ov-noise, #ov-region:checked ~ .media-view .ov-region { display: block; }
.legend { display: flex; align-items: center; gap: 8px; font-size: 0.88em; margin: 4px 0; }
.legend .ramp { width: 180px; height: 12px; border: 1px solid #999; }
.thumb { max-width: 260px; margin: 0; }
.frame-strip { display: flex; flex-wrap: wrap; gap: 6px; }
.frame { margin: 0; width: 160px; }
.frame img, .frame .blank { display: block; width: 160px; aspect-ratio: 16/9; object-fit: contain; background: #222; border: 2px solid transparent; }
.frame.hot img, .frame.hot .blank { border-color: #d55e00; }
.ramp-bar { display: inline-block; width: 80px; height: 6px; background: #ddd; vertical-align: middle; }
.ramp-bar span { display: block; height: 6px; background: #d55e00; }
.thumb img { display: block; max-width: 100%; border: 1px solid #999; }
ol.timeline { list-style: none; padding-left: 0; margin: 8px 0; border-left: 4px solid var(--line); }
ol.timeline > li { position: relative; margin: 0 0 12px 0; padding: 6px 10px 6px 22px; }
ol.timeline > li::before { content: ""; position: absolute; left: -10px; top: 10px; width: 14px; height: 14px; border-radius: 50%; background: #fff; border: 3px solid var(--muted); }
ol.timeline > li.good::before { border-color: var(--good); } ol.timeline > li.bad::before { border-color: var(--bad); background: var(--bad); } ol.timeline > li.warn::before { border-color: var(--warn); }
img.c2pa-thumb { float: right; max-width: 120px; max-height: 90px; margin: 0 0 6px 12px; border: 1px solid #999; }
ol.timeline > li { display: flow-root; }
.matrix td, .matrix th { text-align: center; } .matrix td:first-child, .matrix th:first-child { text-align: left; }
footer { margin-top: 32px; font-size: 0.85em; color: var(--muted); border-top: 1px solid var(--line); padding-top: 8px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  .toggles, .no-print, input[type=checkbox], input[type=checkbox] + label { display: none; }
  section, table, .figure, li { break-inside: avoid; }
  a { color: inherit; } a[href]::after { content: " (" attr(href) ")"; font-size: 0.8em; word-break: break-all; }
}
`;
