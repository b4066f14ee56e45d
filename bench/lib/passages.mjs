// Generated corpus passages for the corpus benchmarks (bench/claim.mjs, bench/corpus-import.mjs):
// sentences of words drawn Zipf-like from a fixed-seed vocabulary of 20,000 made-up words, so
// frequent words are frequent as in real text and every run builds the same corpus.
//
// The generator is mulberry32 (32-bit state, period 2^32, all arithmetic in Math.imul): the
// linear congruential one used before multiplied in doubles, lost the low bits past 2^53 and fell
// into a short cycle, so the same few sentences came back over and over.

/** A deterministic uniform [0, 1) generator from a 32-bit seed. */
export function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `{ rand, passage(i) }`: passage i is one to three sentences of 8–27 words. `common` words are
 * placed at ranks 40, 100, 160, … of the Zipf list (common, not the most common), so a claim made
 * of them matches thousands of rows: the realistic, slow case for retrieval.
 */
export function passageGenerator({ seed = 42, common = [] } = {}) {
  const rand = mulberry32(seed);
  const letters = 'abcdefghijklmnoprstuvw';
  const vocab = Array.from({ length: 20_000 }, () => Array.from({ length: 3 + Math.floor(rand() * 7) }, () => letters[Math.floor(rand() * letters.length)]).join(''));
  common.forEach((w, i) => (vocab[40 + i * 60] = w));
  const word = () => vocab[Math.floor(vocab.length * rand() ** 3)];
  const sentence = () => {
    const w = Array.from({ length: 8 + Math.floor(rand() * 20) }, word);
    return w[0][0].toUpperCase() + w.join(' ').slice(1) + '.';
  };
  return { rand, passage: () => Array.from({ length: 1 + Math.floor(rand() * 3) }, sentence).join(' ') };
}
