// Formal human registers for the AI-text fit (scripts/fit-ai-text.mjs), read at fit time from the
// installed paths of openly licensed Debian packages (nothing copied into the repository):
//
//   register     package (Debian 12)    files read                               licence of the text
//   legal        base-files             /usr/share/common-licenses/*              the licence texts themselves
//                                       (GPL-1/2/3, LGPL-2/2.1/3, GFDL-1.2/1.3,     (verbatim copying permitted;
//                                       Apache-2.0, MPL-1.1/2.0, Artistic, BSD,     CC0-1.0 public domain dedication)
//                                       CC0-1.0)
//   education    python3-doc            /usr/share/doc/python3.11/html/_sources/  PSF License Version 2
//                                       tutorial/*.rst.txt, howto/*.rst.txt
//   governance   doc-debian             /usr/share/doc/debian/constitution.txt.gz, Open Publication License v1.0
//                                       social-contract.txt.gz, debian-manifesto.gz
//                debian-policy          /usr/share/doc/debian-policy/policy.txt.gz GPL-2+
//   textbook     debian-handbook        /usr/share/doc/debian-handbook/html/en-US/ GPL-2+ or CC BY-SA 3.0
//                                       *.html (the book's paragraphs)
//
//   apt-get install --no-install-recommends base-files python3-doc doc-debian debian-policy debian-handbook
//
// A register whose package is missing is left out with a message (the fit then says which).
// Texts are passages of whole paragraphs, 100–300 words, in document order: prose only — code
// blocks, headings, tables and list fragments are dropped, as the engine's prose filter would.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';

const wordCount = (t) => t.split(/\s+/).filter(Boolean).length;

function packageVersion(pkg) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** A paragraph of running prose: long enough, mostly letters, ending like a sentence. */
export function isProse(p) {
  if (wordCount(p) < 15) return false;
  if (!/[.:;)"”]$/.test(p)) return false;
  const letters = (p.match(/[\p{L}\s]/gu) ?? []).length;
  return letters / p.length >= 0.85;
}

/** Consecutive prose paragraphs joined into passages of at least 100 words (a passage over 300 is cut at a sentence end). */
export function passages(paragraphs) {
  const out = [];
  let cur = [];
  let n = 0;
  const flush = () => {
    if (n >= 100) out.push(cur.join(' '));
    cur = [];
    n = 0;
  };
  for (const p of paragraphs) {
    if (!isProse(p)) {
      flush(); // a passage never spans code or a heading
      continue;
    }
    for (const s of wordCount(p) > 300 ? p.split(/(?<=[.;:])\s+(?=[A-Z(])/) : [p]) {
      cur.push(s);
      n += wordCount(s);
      if (n >= 100) flush();
    }
  }
  flush();
  return out;
}

/** Plain-text documents: paragraphs are separated by blank lines. */
export const textParagraphs = (t) => t.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter(Boolean);

/** reStructuredText: unindented paragraphs, inline markup reduced to its text; directives and literal blocks dropped. */
export function rstParagraphs(t) {
  return t
    .split(/\n\s*\n/)
    .filter((p) => !/^\s/.test(p) && !/^\.\. /.test(p) && !/^[=\-~^*#]{3,}\s*$/m.test(p) && !/^\s*[*\-+] |^\s*\d+\. |^>>>/m.test(p))
    .map((p) =>
      p
        .replace(/:[\w:.-]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`/g, '$1') // :role:`text <target>` → text
        .replace(/`([^`<]*?)\s*<[^>]*>`_+/g, '$1') // `text <url>`_ → text
        .replace(/``([^`]*)``/g, '$1')
        .replace(/`([^`]*)`_*/g, '$1')
        .replace(/\*\*?([^*]+)\*\*?/g, '$1')
        .replace(/::$/, ':')
        .replace(/\s+/g, ' ')
        .trim(),
    );
}

/** The Debian handbook's XHTML: the text of each `div.para` that holds no code or nested block. */
export function handbookParagraphs(html) {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(html, 'text/html');
  const out = [];
  const divs = doc.getElementsByTagName('div');
  for (let i = 0; i < divs.length; i++) {
    const d = divs[i];
    if (d.getAttribute('class') !== 'para') continue;
    if (d.getElementsByTagName('pre').length || d.getElementsByTagName('div').length || d.getElementsByTagName('table').length) continue;
    out.push((d.textContent ?? '').replace(/\s+/g, ' ').trim());
  }
  return out;
}

const read = (path) => {
  const buf = readFileSync(path);
  return path.endsWith('.gz') || buf[0] === 0x1f ? gunzipSync(buf) : buf;
};

const REGISTERS = [
  {
    domain: 'legal',
    package: 'base-files',
    licence: 'licence texts (verbatim copying permitted; CC0-1.0 a public domain dedication)',
    files: () => {
      const dir = '/usr/share/common-licenses';
      if (!existsSync(dir)) return [];
      // GPL, LGPL and GFDL are links to the newest version: read each text once.
      const seen = new Set();
      return readdirSync(dir).sort().map((f) => realpathSync(join(dir, f))).filter((p) => !seen.has(p) && seen.add(p));
    },
    paragraphs: textParagraphs,
  },
  {
    domain: 'education',
    package: 'python3-doc',
    licence: 'PSF License Version 2 (the Python documentation)',
    files: () => {
      const base = '/usr/share/doc/python3.11/html/_sources';
      return ['tutorial', 'howto'].flatMap((d) => (existsSync(join(base, d)) ? readdirSync(join(base, d)).sort().filter((f) => f.endsWith('.rst.txt')).map((f) => join(base, d, f)) : []));
    },
    paragraphs: rstParagraphs,
  },
  {
    domain: 'governance',
    package: 'doc-debian, debian-policy',
    licence: 'Open Publication License v1.0 (Debian constitution, social contract, manifesto); GPL-2+ (Debian Policy Manual)',
    files: () => ['/usr/share/doc/debian/constitution.txt.gz', '/usr/share/doc/debian/social-contract.txt.gz', '/usr/share/doc/debian/debian-manifesto.gz', '/usr/share/doc/debian-policy/policy.txt.gz'].filter(existsSync),
    paragraphs: textParagraphs,
  },
  {
    domain: 'textbook',
    package: 'debian-handbook',
    licence: 'GPL-2+ or CC BY-SA 3.0 (The Debian Administrator\'s Handbook)',
    files: () => {
      const dir = '/usr/share/doc/debian-handbook/html/en-US';
      return existsSync(dir) ? readdirSync(dir).sort().filter((f) => f.endsWith('.html')).map((f) => join(dir, f)) : [];
    },
    paragraphs: handbookParagraphs,
  },
];

/**
 * Human texts of each register, deduplicated across files (the GPL versions share paragraphs),
 * each a {text, y: 0, domain, generator: 'human'}; `sources` gets one entry per register (package
 * versions, licence, file count, one sha256 over the files read); `missing` names the registers whose package is not installed.
 */
export function loadRegisters(sources) {
  const texts = [];
  const missing = [];
  const seen = new Set();
  for (const r of REGISTERS) {
    const files = r.files();
    if (!files.length) {
      missing.push(`${r.domain} (apt-get install ${r.package.split(', ').join(' ')})`);
      continue;
    }
    const versions = Object.fromEntries(r.package.split(', ').map((p) => [p, packageVersion(p)]));
    const paras = [];
    // One entry per register: its files and one sha256 over their names and contents, in order.
    const hash = createHash('sha256');
    for (const f of files) {
      const buf = read(f);
      hash.update(`${f}\u0000`).update(readFileSync(f));
      // Paragraphs already seen in another file (shared licence clauses) are skipped there.
      for (const p of r.paragraphs(buf.toString('utf8'))) {
        const key = p.toLowerCase();
        if (isProse(p) && seen.has(key)) continue;
        seen.add(key);
        paras.push(p);
      }
      paras.push(''); // no passage spans two files
    }
    sources.push({ register: r.domain, package: r.package, versions, licence: r.licence, files: files.length, first_file: files[0], sha256: hash.digest('hex') });
    for (const text of passages(paras)) texts.push({ text, y: 0, domain: r.domain, generator: 'human' });
  }
  return { texts, missing };
}
