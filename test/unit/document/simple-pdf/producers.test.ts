/**
 * Real writers' output, built by the test when the writer is installed (skipped, visibly, when
 * not): LibreOffice (embedded TrueType subsets with ToUnicode, resources at two tree levels) and
 * Chromium (Type0 Identity-H over embedded TrueType). Each file is either read exactly as pdf.js
 * reads it or declined; these two are expected to be read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSimplePdfFile } from '../../../../src/engine/document/pdf/text/simple-reader.js';
import { expectSameAsPdfJs } from './harness.js';

const has = (cmd: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

const HTML = `<html><body>
<h1>Quarterly Report — “quoted” Ünïcödé</h1>
<p style="font-family:'Liberation Serif'">The committee reviewed the <b>annual budget</b> and <i>its footnotes</i>. Café, naïve, façade; 50 € – 12.5% ± 0.3. Ligatures: office, affluent, flight.</p>
<p style="font-family:'Liberation Sans';font-size:9pt;text-align:justify">A justified paragraph in a smaller size, long enough to wrap over several lines so that the layout decides where new lines begin and how far apart the words are on each line.</p>
<ul><li>First bullet item</li><li>Second bullet item</li></ul>
<table border="1"><tr><td>Cell A1</td><td>Cell B1</td><td>1,234.00</td></tr><tr><td>Cell A2</td><td>Cell B2</td><td>5.00</td></tr></table>
<p style="font-family:'Liberation Mono'">monospace code_line(x, y) { return x + y; }</p>
</body></html>`;

const dir = mkdtempSync(join(tmpdir(), 'verity-simple-pdf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'doc.html'), HTML);

const soffice = has('soffice');
describe.skipIf(!soffice)(`simple reader: a LibreOffice PDF${soffice ? '' : ' — SKIPPED: soffice not installed'}`, () => {
  it('is read exactly as pdf.js reads it', async () => {
    execFileSync('soffice', [`-env:UserInstallation=file://${join(dir, 'lo-profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', dir, join(dir, 'doc.html')], { stdio: 'ignore', timeout: 120_000 });
    const pdf = readFileSync(join(dir, 'doc.pdf'));
    const r = readSimplePdfFile(pdf);
    expect(r.ok ? 'read' : r.reason).toBe('read');
    await expectSameAsPdfJs(pdf);
  }, 150_000);
});

const chromium = has('chromium');
describe.skipIf(!chromium)(`simple reader: a Chromium PDF${chromium ? '' : ' — SKIPPED: chromium not installed'}`, () => {
  it('is read exactly as pdf.js reads it', async () => {
    const out = join(dir, 'chrome.pdf');
    execFileSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${join(dir, 'chrome-profile')}`, `--print-to-pdf=${out}`, `file://${join(dir, 'doc.html')}`], { stdio: 'ignore', timeout: 120_000 });
    const pdf = readFileSync(out);
    const r = readSimplePdfFile(pdf);
    expect(r.ok ? 'read' : r.reason).toBe('read');
    await expectSameAsPdfJs(pdf);
  }, 150_000);
});

const TEX = [
  '\\documentclass{article}',
  '\\usepackage[T1]{fontenc}',
  '\\usepackage{lmodern}',
  '\\begin{document}',
  '\\section{Introduction}',
  "The quick brown fox jumps over the lazy dog. Caf\\'e, na\\\"ive --- ``quotes'' and ligatures: office, affluent, flight.",
  '\\textbf{Bold text}, \\emph{emphasis} and \\texttt{typewriter text}.\\footnote{A footnote.}',
  '\\end{document}',
  '',
].join('\n');
const lmodern = has('pdflatex') && (() => {
  try {
    return execFileSync('kpsewhich', ['lmodern.sty'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
})();
describe.skipIf(!lmodern)(`simple reader: a pdfLaTeX PDF (embedded Type1 programs)${lmodern ? '' : ' — SKIPPED: pdflatex with lmodern not installed'}`, () => {
  it('is read exactly as pdf.js reads it', async () => {
    writeFileSync(join(dir, 'doc.tex'), TEX);
    execFileSync('pdflatex', ['-interaction=batchmode', '-output-directory', dir, join(dir, 'doc.tex')], { stdio: 'ignore', timeout: 120_000, cwd: dir });
    const pdf = readFileSync(join(dir, 'doc.pdf'));
    const r = readSimplePdfFile(pdf);
    expect(r.ok ? 'read' : r.reason).toBe('read');
    await expectSameAsPdfJs(pdf);
  }, 150_000);
});
