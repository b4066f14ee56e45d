// The formal human registers of the AI-text fit (scripts/ai-text-registers.mjs): prose paragraphs
// only, joined into passages of 100–300 words that never span code or a heading.
import { describe, expect, it } from 'vitest';
import { handbookParagraphs, isProse, passages, rstParagraphs, textParagraphs } from '../../../scripts/ai-text-registers.mjs';

const sentence = (i: number) => `The licensee may copy and distribute verbatim copies of clause ${'abcdefghij'[i % 10]} provided that this notice is kept intact in every copy.`;
const para = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sentence(from + i)).join(' ');

describe('formal registers for the AI-text fit', () => {
  it('keeps running prose and drops headings, code and list fragments', () => {
    expect(isProse(para(2))).toBe(true);
    expect(isProse('2. Definitions')).toBe(false);
    expect(isProse('for i in range(10): print(i) # a loop that prints numbers one by one to the screen')).toBe(false);
  });

  it('joins consecutive paragraphs into passages of at least 100 words, never across code', () => {
    // 3 paragraphs of ~46 words, a code line, then 3 more: two passages, neither spanning the code.
    const out = passages([para(2), para(2, 2), para(2, 4), 'x = f(y) + 1', para(2, 6), para(2, 8), para(2, 10)]);
    expect(out).toHaveLength(2);
    for (const p of out) {
      expect(p.split(' ').length).toBeGreaterThanOrEqual(100);
      expect(p).not.toContain('x = f(y)');
    }
    // A short run before a heading is dropped, not padded with what follows.
    expect(passages([para(1), 'Section 4', para(1)])).toEqual([]);
  });

  it('cuts a paragraph over 300 words at sentence ends', () => {
    const out = passages([para(20)]);
    expect(out.length).toBeGreaterThanOrEqual(2);
    for (const p of out) expect(p.split(' ').length).toBeLessThanOrEqual(300);
  });

  it('reads reStructuredText prose without markup, directives or literal blocks', () => {
    const rst = ['Using :func:`len` on a ``list`` gives its length, as the `tutorial <https://x.test/>`_ explains in detail::', '    >>> len([1, 2])', '.. note::', 'Plain text stays.'].join('\n\n');
    expect(rstParagraphs(rst)).toEqual(['Using len on a list gives its length, as the tutorial explains in detail:', 'Plain text stays.']);
  });

  it('reads the handbook paragraphs, skipping those that hold code', () => {
    const html = '<html><body><div class="para">A <code>cache</code> of package lists.</div><div class="para">Run: <pre>apt update</pre></div><p>not a para</p></body></html>';
    expect(handbookParagraphs(html)).toEqual(['A cache of package lists.']);
  });

  it('splits plain text at blank lines and collapses whitespace', () => {
    expect(textParagraphs('  One\n  line.\n\n\nTwo.\n')).toEqual(['One line.', 'Two.']);
  });
});
