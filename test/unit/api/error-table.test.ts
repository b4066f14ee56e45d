import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../../src/api/errors.js';
import { errorTable } from '../../../scripts/error-table.mjs';
import { VERSION } from '../../../src/version.js';

const root = new URL('../../../', import.meta.url);

describe('README error table', () => {
  it('is generated with one row per catalogue code', () => {
    const table = errorTable(ERROR_CATALOGUE);
    const rows = table.trim().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(ERROR_CATALOGUE).length);
    expect(rows).toContain('| 403 | `FORBIDDEN` | 4 | The key\'s plan lacks this endpoint or source; see `required_plan` |');
  });

  it('README.md between <!-- errors:start --> and <!-- errors:end --> equals ERROR_CATALOGUE', () => {
    const readme = new URL('README.md', root);
    expect(existsSync(readme), 'README.md is missing').toBe(true);
    const text = readFileSync(readme, 'utf8');
    const m = /<!-- errors:start -->\r?\n([\s\S]*?)<!-- errors:end -->/.exec(text);
    expect(m, 'README.md has no <!-- errors:start --> … <!-- errors:end --> section').not.toBeNull();
    // On failure: `npm run build && node scripts/error-table.mjs` prints the table to paste.
    expect(m![1]!.trim()).toBe(errorTable(ERROR_CATALOGUE).trim());
  });
});

describe('version', () => {
  it('src/version.ts equals package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
