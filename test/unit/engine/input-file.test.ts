/**
 * `VerifyOptions.inputFile` (issue 31): the batch pools hand the analysis a file to read where it
 * runs, so the process that sends the job never holds the bytes. The result must be what the same
 * bytes give as `inputBytes`, live and sandbox, and a file gone by the time the analysis starts is
 * refused without naming its path (on a server it is a spool file, nothing of the client's).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, createSandboxEngine } from '../../../src/engine/index.js';
import { cameraJpeg, makePorts, scene } from '../media/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-input-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const strip = (r: object): unknown => {
  const { id: _i, latency_ms: _l, ...rest } = r as Record<string, unknown>;
  return rest;
};

describe('a file handed to the engine as a path', () => {
  it('media and documents: the same result as the bytes themselves, live and sandbox', async () => {
    const jpeg = await cameraJpeg(scene(320, 256, 7), 320, 256);
    const photo = join(dir, 'photo.jpg');
    writeFileSync(photo, jpeg);
    for (const engine of [createEngine(makePorts()), createSandboxEngine(makePorts())]) {
      expect(strip(await engine.verifyMedia({}, { inputFile: photo }))).toEqual(strip(await engine.verifyMedia({}, { inputBytes: jpeg })));
    }
    const memo = join(dir, 'memo.txt');
    writeFileSync(memo, 'The committee approved the budget on Tuesday.\n');
    const live = createEngine(makePorts());
    expect(strip(await live.verifyDocument({ source: 'upload' }, { inputFile: memo }))).toEqual(strip(await live.verifyDocument({ source: 'upload' }, { inputBytes: Buffer.from('The committee approved the budget on Tuesday.\n') })));
  });

  it('a file gone when the analysis starts: 422 that does not name the path', async () => {
    const gone = join(dir, 'secret-spool-name');
    const err = await createEngine(makePorts())
      .verifyMedia({}, { inputFile: gone })
      .then(
        () => undefined,
        (e: { code: string; message: string }) => e,
      );
    expect(err).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/could not be read when its analysis started \(ENOENT\)/) });
    expect(err!.message).not.toContain('secret-spool-name');
  });
});
