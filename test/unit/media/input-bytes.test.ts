/**
 * Embedded callers hand the engine a file's bytes (`VerifyOptions.inputBytes`) instead of base64 in
 * the request: the result and every error must be what the same file in `file` / `content` gives,
 * and the remote engine must put the bytes on the wire as base64.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument } from 'pdf-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { LIMITS } from '../../../src/api/requests.js';
import { createRemoteEngine } from '../../../src/client/remote-engine.js';
import { createEngine, createSandboxEngine } from '../../../src/engine/index.js';
import { cameraJpeg, codeOf, makePorts, scene } from './helpers.js';

const strip = (r: object): unknown => {
  const { id: _i, latency_ms: _l, ...rest } = r as Record<string, unknown>;
  return rest;
};

let server: Server | undefined;
afterEach(() => void server?.close());

describe('a file handed to the engine as bytes', () => {
  it('media: the same result as base64 in `file`, live and sandbox', async () => {
    const jpeg = await cameraJpeg(scene(320, 256, 5), 320, 256);
    const live = createEngine(makePorts());
    const viaBase64 = await live.verifyMedia({ file: jpeg.toString('base64') });
    const viaBytes = await live.verifyMedia({}, { inputBytes: jpeg });
    expect(strip(viaBytes)).toEqual(strip(viaBase64));
    expect(viaBytes.metadata).toMatchObject({ width: 320, height: 256, format: 'jpeg' });

    // The sandbox reads the request only: it gets the bytes back as base64, triggers included.
    const marked = Buffer.concat([jpeg, Buffer.from('verity-sandbox:manipulated')]);
    const sandbox = createSandboxEngine(makePorts());
    const s1 = await sandbox.verifyMedia({ file: marked.toString('base64') });
    const s2 = await sandbox.verifyMedia({}, { inputBytes: marked });
    expect(s2.authenticity).toBe('manipulated');
    expect(strip(s2)).toEqual(strip(s1));
  });

  it('document: the same result as base64 in `content` with source upload', async () => {
    const doc = await PDFDocument.create();
    doc.setAuthor('Example Widgets Ltd');
    doc.addPage([300, 300]).drawText('The committee approved the budget on Tuesday.', { x: 20, y: 150, size: 10 });
    const pdf = Buffer.from(await doc.save());
    const live = createEngine(makePorts());
    const viaBase64 = await live.verifyDocument({ source: 'upload', content: pdf.toString('base64') });
    const viaBytes = await live.verifyDocument({ source: 'upload' }, { inputBytes: pdf });
    expect(strip(viaBytes)).toEqual(strip(viaBase64));
    expect(viaBytes.metadata).toMatchObject({ page_count: 1 });
  });

  it('the errors of the wire form: empty, too large, given twice, a URL besides, a non-upload document', async () => {
    const live = createEngine(makePorts());
    // Empty: refused by the schema as an empty `file` is.
    const failure = (p: Promise<unknown>): Promise<VerityError> => p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as VerityError);
    const empty = await failure(live.verifyMedia({}, { inputBytes: Buffer.alloc(0) }));
    const emptyWire = await failure(live.verifyMedia({ file: '' }));
    expect(empty).toBeInstanceOf(VerityError);
    expect(empty.code).toBe('VALIDATION_FAILED');
    expect(empty.toBody()).toEqual(emptyWire.toBody());
    expect(await codeOf(live.verifyMedia({}, { inputBytes: Buffer.alloc(LIMITS.fileBytes + 1) }))).toBe('PAYLOAD_TOO_LARGE');
    expect(await codeOf(live.verifyMedia({ url: 'https://example.com/a.jpg' }, { inputBytes: Buffer.from('x') }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(live.verifyMedia({ file: 'AAAA' }, { inputBytes: Buffer.from('x') }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(live.verifyDocument({ source: 'raw' }, { inputBytes: Buffer.from('hello') }))).toBe('VALIDATION_FAILED');
    // Documents read the bytes themselves too: the same size limit as a decoded `content`.
    expect(await codeOf(live.verifyDocument({ source: 'upload' }, { inputBytes: Buffer.alloc(LIMITS.fileBytes + 1) }))).toBe('PAYLOAD_TOO_LARGE');
    expect(await codeOf(live.verifyDocument({ source: 'upload', content: 'AAAA' }, { inputBytes: Buffer.from('x') }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(live.verifyMedia({}, { inputBytes: Buffer.from('plain text, not an image') }))).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('the remote engine sends the bytes as base64 in `file` and `content`', async () => {
    const bodies: unknown[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'vrf_med_x' }));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const remote = createRemoteEngine({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, userAgent: 'test' });
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x01, 0x02]);
    await remote.verifyMedia({ check_deepfakes: false }, { inputBytes: bytes });
    await remote.verifyDocument({ source: 'upload' }, { inputBytes: bytes });
    expect(bodies).toEqual([
      { check_deepfakes: false, file: bytes.toString('base64') },
      { source: 'upload', content: bytes.toString('base64') },
    ]);
  });
});
