/** Media evidence carries a plain-language summary beside the technical finding (issue 14 item 2). */
import { expect, it } from 'vitest';
import { combineImageScores } from '../../../src/engine/media/score.js';
import type { Signal } from '../../../src/engine/media/forensics/types.js';

const grid = (probability: number): Signal => ({
  analyzer: 'forensics.jpeg_grid',
  kind: 'manipulation',
  probability,
  confidence: 0.7,
  finding: probability ? 'A region of 4 connected 64×64 tiles carries a second JPEG block grid at phase (5,2)' : 'One block grid, phase (0,0), in every tile',
});

it('a fired detector is summarised in plain words; the finding with its numbers stays beside it', () => {
  const { evidence } = combineImageScores([grid(0.6)], null);
  const e = evidence.find((x) => x.source === 'forensics.jpeg_grid')!;
  expect(e.finding).toContain('phase (5,2)');
  expect(e.summary).toMatch(/pasted in from another JPEG/);
  expect(e.summary).not.toMatch(/\d/);
});

it('a detector that found nothing says so, and the C2PA line says whether credentials exist', () => {
  const { evidence } = combineImageScores([grid(0)], null);
  expect(evidence.find((x) => x.source === 'forensics.jpeg_grid')!.summary).toBe('The JPEG compression pattern is the same across the image.');
  expect(evidence.find((x) => x.source === 'c2pa')!.summary).toBe('No Content Credentials (C2PA) in the file.');
});

it('an analyzer without a rule keeps its finding alone (no invented summary)', () => {
  const { evidence } = combineImageScores([{ ...grid(0.5), analyzer: 'forensics.something_new' }], null);
  expect(evidence.find((x) => x.source === 'forensics.something_new')!.summary).toBeUndefined();
});
