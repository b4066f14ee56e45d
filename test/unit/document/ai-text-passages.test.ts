import { describe, expect, it } from 'vitest';
import { AiTextSummary, DocumentResult } from '../../../src/api/results.js';
import { createEngine } from '../../../src/engine/index.js';
import { DEFAULT_MODEL, detectAiTextStylometric } from '../../../src/engine/document/ai-text/detector.js';
import { prepareAiTextDetector, proseForDetection } from '../../../src/engine/document/ai-text/analyze.js';
import { words } from '../../../src/engine/document/ai-text/features.js';
import { scoreFeatures } from '../../../src/engine/document/ai-text/model.js';
import { aiTextPassages, sentenceWindows } from '../../../src/engine/document/ai-text/passages.js';
import { PROSE_HUMAN, b64, buildDocx, paragraph, testPorts } from './build.js';

// Stock-phrased, comma-heavy, even sentences: the kind of paragraph the model scores as machine text.
const AI_PARA =
  'Artificial intelligence plays a crucial role in modern healthcare, offering significant potential to enhance patient outcomes. Furthermore, it enables clinicians to navigate complex datasets with remarkable efficiency. Additionally, machine learning models can identify intricate patterns that might otherwise remain hidden. Moreover, these tools foster collaboration across multidisciplinary teams, ensuring that care remains comprehensive and holistic. Ultimately, the integration of these technologies represents a pivotal shift, underscoring the importance of thoughtful implementation. Overall, it is important to note that careful oversight remains paramount.';
// Casual first-person prose with names, numbers, contractions and uneven sentences.
const HUMAN_PARAS = [
  PROSE_HUMAN,
  "Our street flooded again in March. Mrs. Okafor at number 12 lost her whole garden, tulips and all, and the council's man turned up three days late with a clipboard. I asked him why the drain by the bus stop hadn't been cleared since 2019. He shrugged. We've since started a WhatsApp group; 41 people joined in a week, which says something.",
  "Grandpa's recipe card says 'a good handful' of flour. Whose hand? His were enormous. I tried it twice: first the bread came out like a brick, then like a pancake. Third go, I weighed everything and wrote it down (480 g, if you're wondering). It's still not his bread. Maybe it never will be, and that's fine.",
];

describe('AI-text passages (ai_text on DocumentResult)', () => {
  it('groups whole sentences into windows of at least min_flag_words words, the short tail joining the window before it', () => {
    const text = proseForDetection([...HUMAN_PARAS, AI_PARA].join(' '));
    const windows = sentenceWindows(text, DEFAULT_MODEL.min_flag_words);
    expect(windows.length).toBeGreaterThan(2);
    for (const [i, w] of windows.entries()) {
      const slice = text.slice(w.start, w.end);
      expect(words(slice).length).toBeGreaterThanOrEqual(DEFAULT_MODEL.min_flag_words);
      expect(slice).toMatch(/^\S/);
      expect(slice).toMatch(/[.!?…)'"]$/);
      if (i > 0) expect(w.start).toBeGreaterThan(windows[i - 1]!.end);
    }
    expect(windows.at(-1)!.end).toBe(text.length);
    // "Mrs. Okafor" does not end a sentence: no window starts at "Okafor".
    expect(windows.some((w) => text.slice(w.start).startsWith('Okafor'))).toBe(false);
  });

  it('puts the machine-like paragraph first, with its own probability and plain-language cues', async () => {
    const content = [...HUMAN_PARAS, AI_PARA].join(' ');
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content });
    const ai = DocumentResult.pick({ ai_text: true }).parse({ ai_text: r.ai_text }).ai_text!;
    expect(ai.probability).toBe(r.ai_generated_probability);
    expect(ai.flagged).toBe(r.manipulation_flags.includes('ai_generated_text'));
    expect(ai.words).toBe(words(content).length);
    expect(ai.passages.length).toBeGreaterThan(1);
    expect(ai.passages.length).toBeLessThanOrEqual(5);
    const prose = proseForDetection(content);
    for (const p of ai.passages) {
      expect(p.excerpt.length).toBeLessThanOrEqual(300);
      expect(prose.slice(p.start, p.end).startsWith(p.excerpt.replace(/…$/, ''))).toBe(true);
      expect(p.cues.length).toBeGreaterThanOrEqual(1);
      expect(p.cues.length).toBeLessThanOrEqual(3);
      for (const c of p.cues) expect(c).not.toMatch(/_/);
    }
    const probs = ai.passages.map((p) => p.probability);
    expect(probs).toEqual([...probs].sort((a, b) => b - a));
    const top = ai.passages[0]!;
    expect(prose.slice(top.start, top.end)).toContain('it is important to note');
    expect(top.probability).toBeGreaterThan(0.8);
    expect(ai.passages.at(-1)!.probability).toBeLessThan(0.5);
  });

  it('scores each window with the same model: a window alone gets the probability the whole model gives that text', () => {
    const text = proseForDetection([...HUMAN_PARAS, AI_PARA].join(' '));
    const passages = aiTextPassages(text, DEFAULT_MODEL);
    const solo = aiTextPassages(text.slice(passages[0]!.start, passages[0]!.end), DEFAULT_MODEL);
    expect(solo).toHaveLength(1);
    expect(solo[0]!.probability).toBe(passages[0]!.probability);
  });

  it("reuses the detector's features only for a window that is the whole text: the same passages as measuring every window", () => {
    // One window (no sentence ends to cut at), several windows, and a text past the features' 60,000
    // characters (its one window is a prefix, not the whole text, so it is measured itself).
    const oneWindow = proseForDetection(AI_PARA.replace(/\./g, ',').repeat(4));
    const several = proseForDetection([...HUMAN_PARAS, AI_PARA].join(' '));
    const long = proseForDetection('word and more words, '.repeat(3_500));
    expect(sentenceWindows(oneWindow, DEFAULT_MODEL.min_flag_words)).toEqual([{ start: 0, end: oneWindow.length }]);
    expect(long.length).toBeGreaterThan(60_000);
    for (const text of [oneWindow, several, long]) {
      const style = detectAiTextStylometric(text);
      const reused = aiTextPassages(text, DEFAULT_MODEL, style);
      expect(reused.length, text.slice(0, 40)).toBeGreaterThan(0);
      expect(reused).toEqual(aiTextPassages(text, DEFAULT_MODEL));
    }
    // A window that is the whole text takes the given features as they are (here another text's,
    // to show that they are used and not measured again).
    const other = detectAiTextStylometric(several);
    const given = scoreFeatures(DEFAULT_MODEL, other.features, other.wordCount).probability;
    expect(aiTextPassages(oneWindow, DEFAULT_MODEL, other)[0]!.probability).toBe(Math.round(given * 1000) / 1000);
    expect(aiTextPassages(oneWindow, DEFAULT_MODEL)[0]!.probability).not.toBe(Math.round(given * 1000) / 1000);
  });

  it('gives the same analysis after the detector was prepared on its warm-up text (nothing of it is kept)', async () => {
    const content = [...HUMAN_PARAS, AI_PARA].join(' ');
    const engine = createEngine(testPorts());
    const before = await engine.verifyDocument({ source: 'raw', content });
    prepareAiTextDetector();
    const after = await engine.verifyDocument({ source: 'raw', content });
    const strip = (r: typeof before): unknown => ({ ...r, id: undefined, latency_ms: undefined });
    expect(strip(after)).toEqual(strip(before));
  });

  it('is absent when there was too little prose to measure, and when a document has no text', async () => {
    const engine = createEngine(testPorts());
    const short = await engine.verifyDocument({ source: 'raw', content: 'Too short to judge.' });
    expect(short.ai_text).toBeUndefined();
    const empty = await engine.verifyDocument({ source: 'upload', content: b64(await buildDocx({ body: '' })) });
    expect(empty.ai_text).toBeUndefined();
  });

  it('gives offsets into the analysed prose of a DOCX (paragraphs joined, layout lines dropped)', async () => {
    const body = ['Annual report', ...HUMAN_PARAS, 'Page 2', AI_PARA].map(paragraph).join('');
    const r = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(await buildDocx({ body })) });
    const prose = proseForDetection([...HUMAN_PARAS, AI_PARA].join('\n'));
    const ai = AiTextSummary.parse(r.ai_text);
    expect(ai.passages.length).toBeGreaterThan(1);
    for (const p of ai.passages) expect(prose.slice(p.start, p.end).startsWith(p.excerpt.replace(/…$/, ''))).toBe(true);
    expect(prose.slice(ai.passages[0]!.start, ai.passages[0]!.end)).toContain('Moreover');
  });

  it('reads a short text as one window, with the length-shrunk probability of the whole', async () => {
    const content = AI_PARA.split(' ').slice(0, 30).join(' ');
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content });
    expect(r.ai_text?.passages).toHaveLength(1);
    expect(r.ai_text?.passages[0]).toMatchObject({ start: 0, end: content.length, probability: r.ai_generated_probability });
    expect(r.ai_text?.flagged).toBe(false);
  });
});

describe('AI-text passages on hostile input', () => {
  it('stays bounded on a long run of abbreviations and on text without sentence ends', () => {
    const abbrev = proseForDetection('Dr. '.repeat(20_000));
    const noEnds = proseForDetection('word '.repeat(15_000));
    for (const text of [abbrev, noEnds]) {
      const passages = aiTextPassages(text, DEFAULT_MODEL);
      expect(passages.length).toBeLessThanOrEqual(1);
      for (const p of passages) {
        expect(p.excerpt.length).toBeLessThanOrEqual(300);
        expect(p.end).toBeLessThanOrEqual(60_000);
      }
    }
  });
});
