import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { standardFontDataSource } from '../../../../scripts/standard-font-data.mjs';

describe('standard font data', () => {
  it('standard-font-data.ts is what scripts/standard-font-data.mjs generates from @pdf-lib/standard-fonts', () => {
    const file = readFileSync(new URL('../../../../src/engine/document/pdf/text/standard-font-data.ts', import.meta.url), 'utf8');
    expect(file).toBe(standardFontDataSource());
  });
});
