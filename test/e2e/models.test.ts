/**
 * The built CLI pulls the tiny NLI model from a folder and runs it once before keeping it: the
 * bundle's lazy imports of onnxruntime-node and @huggingface/tokenizers (external to the bundle)
 * work from the installed package, and `models list` sees the result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyNliModel } from '../helpers/tiny-nli-model.js';
import { newHome, verity } from './run-cli.js';

const source = mkdtempSync(join(tmpdir(), 'verity-e2e-nli-'));
writeTinyNliModel(source);
afterAll(() => rmSync(source, { recursive: true, force: true }));

describe('verity models (built CLI)', () => {
  it('pull nli --from DIR loads the model in the bundle; list shows it verified', async () => {
    const home = newHome();
    const pull = await verity(['models', 'pull', 'nli', '--from', source, '--json'], { home });
    expect(pull.code, pull.stderr).toBe(0);
    expect(JSON.parse(pull.stdout)).toMatchObject({ id: 'Xenova/nli-deberta-v3-xsmall', loads: true, integrity: 'local' });
    const list = await verity(['models', 'list', '--json'], { home });
    expect(JSON.parse(list.stdout)).toMatchObject({ data: [{ kind: 'nli', verified: true, active: false }] });
    const missing = await verity(['models', 'pull', 'nli', '--from', join(home, 'none'), '--json'], { home });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toBe('VALIDATION_FAILED');
  });
});
