import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import {
  AUTHENTICITIES,
  BusinessResult,
  ClaimResult,
  COMPANY_STATUSES,
  DocumentResult,
  MANIPULATION_FLAGS,
  MediaResult,
  VERDICTS,
} from '../../../src/api/results.js';
import { networkCalls, sandbox } from './engine.js';

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
/** Everything but the per-request id and measured latency must repeat exactly. */
const stable = ({ id: _id, latency_ms: _l, ...rest }: { id: string; latency_ms: number }) => rest;

afterAll(() => expect(networkCalls).toEqual([]));

describe('sandbox determinism (SPEC 5.2)', () => {
  it('the same request gives the same result for all four operations', async () => {
    const pairs = await Promise.all([
      Promise.all([0, 1].map(() => sandbox.verifyClaim({ claim: 'The Eiffel Tower is in Paris' }))),
      Promise.all([0, 1].map(() => sandbox.verifyBusiness({ company_name: 'Acme Widgets Ltd', officers: true, filings: true }))),
      Promise.all([0, 1].map(() => sandbox.verifyMedia({ file: b64('\xff\xd8\xff fake jpeg') }))),
      Promise.all([0, 1].map(() => sandbox.verifyDocument({ source: 'raw', content: 'Quarterly report' }))),
    ]);
    for (const [a, b] of pairs) {
      expect(a!.id).not.toBe(b!.id);
      expect(stable(a!)).toEqual(stable(b!));
    }
  });

  it('different inputs give different results', async () => {
    const a = await sandbox.verifyClaim({ claim: 'Water boils at 100 °C' });
    const b = await sandbox.verifyClaim({ claim: 'Water boils at 90 °C' });
    expect(stable(a)).not.toEqual(stable(b));
  });

  it('results carry real latency and the credits of DESIGN.md', async () => {
    const claim = await sandbox.verifyClaim({ claim: 'x' });
    expect(claim.latency_ms).toBeGreaterThanOrEqual(0);
    expect(claim.credits_used).toBe(1);
    expect((await sandbox.verifyBusiness({ company_name: 'Acme' })).credits_used).toBe(2);
    expect((await sandbox.verifyBusiness({ company_name: 'Acme', officers: true, filings: true })).credits_used).toBe(4);
    expect((await sandbox.verifyDocument({ source: 'raw', content: 'x' })).credits_used).toBe(3);
    expect((await sandbox.verifyMedia({ url: 'https://example.com/a.jpg' })).credits_used).toBe(5);
  });

  it('honours max_evidence and validates requests like the live engine', async () => {
    expect((await sandbox.verifyClaim({ claim: 'x', max_evidence: 3 })).evidence).toHaveLength(3);
    await expect(sandbox.verifyClaim({ claim: 'a'.repeat(2001) })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('every enum value is reachable through the documented triggers', () => {
  it.each(VERDICTS)('claim verdict %s via "#%s"', async (verdict) => {
    const r = await sandbox.verifyClaim({ claim: `Some statement #${verdict}` });
    expect(r.verdict).toBe(verdict);
    expect(ClaimResult.safeParse(r).success).toBe(true);
  });

  it('a claim without a trigger is true', async () => {
    expect((await sandbox.verifyClaim({ claim: 'The Eiffel Tower is in Paris' })).verdict).toBe('true');
  });

  it.each(COMPANY_STATUSES)('business status %s via a word in the name', async (status) => {
    const name = status === 'active' ? 'Acme Widgets Ltd' : `Globex ${status[0]!.toUpperCase()}${status.slice(1)} Ltd`;
    const r = await sandbox.verifyBusiness({ company_name: name, jurisdiction: 'gb', officers: true, filings: true });
    expect(r.status).toBe(status);
    expect(BusinessResult.safeParse(r).success).toBe(true);
    expect(r.officers?.length).toBeGreaterThan(0);
    expect(r.filings?.length).toBeGreaterThan(0);
  });

  it('business "notfound" is NOT_FOUND', async () => {
    await expect(sandbox.verifyBusiness({ company_name: 'Notfound Holdings' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each(AUTHENTICITIES)('media authenticity %s via verity-sandbox:%s in the URL and in file bytes', async (a) => {
    const byUrl = await sandbox.verifyMedia({ url: `https://example.com/verity-sandbox:${a}.jpg` });
    const byFile = await sandbox.verifyMedia({ file: b64(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from(` verity-sandbox:${a} `)])) });
    for (const r of [byUrl, byFile]) {
      expect(r.authenticity).toBe(a);
      expect(MediaResult.safeParse(r).success).toBe(true);
    }
    expect(byFile.metadata.format).toBe('jpeg');
  });

  it('media deepfake trigger: manipulated with a high deepfake_score', async () => {
    const r = await sandbox.verifyMedia({ url: 'https://example.com/verity-sandbox:deepfake.png' });
    expect(r.authenticity).toBe('manipulated');
    expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
  });

  it.each(MANIPULATION_FLAGS)('document flag %s via "#%s" in text and verity-sandbox:%s in bytes', async (flag) => {
    const raw = await sandbox.verifyDocument({ source: 'raw', content: `Report text #${flag}` });
    const upload = await sandbox.verifyDocument({ source: 'upload', content: b64(`%PDF-1.7\n% verity-sandbox:${flag}\n%%EOF`) });
    for (const r of [raw, upload]) {
      expect(r.manipulation_flags).toEqual([flag]);
      expect(DocumentResult.safeParse(r).success).toBe(true);
    }
  });

  it('several document flags at once, and none without triggers', async () => {
    const r = await sandbox.verifyDocument({ source: 'raw', content: '#metadata_stripped and #signature_forgery' });
    expect(r.manipulation_flags).toEqual(['metadata_stripped', 'signature_forgery']);
    expect((await sandbox.verifyDocument({ source: 'raw', content: 'plain' })).manipulation_flags).toEqual([]);
  });

  it('"unavailable" simulates an upstream outage in every operation', async () => {
    const calls = [
      sandbox.verifyClaim({ claim: 'x #unavailable' }),
      sandbox.verifyBusiness({ company_name: 'Acme #unavailable' }),
      sandbox.verifyMedia({ url: 'https://example.com/verity-sandbox:unavailable.jpg' }),
      sandbox.verifyDocument({ source: 'raw', content: 'verity-sandbox:unavailable' }),
    ];
    for (const c of calls) {
      const err = await c.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VerityError);
      expect((err as VerityError).code).toBe('UNAVAILABLE');
    }
  });
});

describe('honest about the file: real facts kept, only verdicts simulated', () => {
  it("an image's type, pixel size and camera metadata are the file's own", async () => {
    const { default: sharp } = await import('sharp');
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c85028' } })
      .withExif({ IFD0: { Make: 'Harbour Optics', Model: 'HX-1' } })
      .jpeg()
      .toBuffer();
    const r = await sandbox.verifyMedia({ file: b64(jpeg) });
    expect(r.metadata).toMatchObject({ format: 'jpeg', width: 64, height: 48, exif: { make: 'Harbour Optics', model: 'HX-1' } });
    expect(r.warnings?.[0]).toMatch(/simulated.*type, size and metadata are real/);
  });

  it('a URL is not fetched: its size is unknown (0), not invented', async () => {
    const r = await sandbox.verifyMedia({ url: 'https://example.com/photo.jpg' });
    expect(r.metadata).toMatchObject({ format: 'jpeg', width: 0, height: 0, exif: { make: null, model: null } });
  });

  it("a PDF's page count, producer and author are the file's own; its #-sequences are not triggers", async () => {
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    doc.setAuthor('Finance Team');
    doc.setProducer('Report Maker 2.1');
    for (let i = 0; i < 3; i++) doc.addPage([200, 200]);
    // A real PDF's bytes are full of "#" (name escapes, colours): "#deepfake" there is data.
    const pdf = Buffer.concat([Buffer.from(await doc.save()), Buffer.from('\n% /Name#20with#deepfake #signature_forgery #xs #jh\n')]);
    const r = await sandbox.verifyDocument({ source: 'upload', content: b64(pdf) });
    expect(r.metadata).toMatchObject({ page_count: 3, producer: 'Report Maker 2.1', author: 'Finance Team' });
    expect(r.manipulation_flags).toEqual([]);
    expect(r.evidence[0]!.finding).toBe('Simulated analysis (triggers: none)');
  });

  it('only the operation\'s known words are triggers', async () => {
    const r = await sandbox.verifyMedia({ url: 'https://example.com/verity-sandbox:bogus/verity-sandbox:suspicious.jpg' });
    expect(r.authenticity).toBe('suspicious');
    expect(r.evidence[0]!.finding).toBe('Simulated analysis (trigger: suspicious)');
    // Media never reads "#word" (README: verity-sandbox: in the URL or bytes).
    expect((await sandbox.verifyMedia({ url: 'https://example.com/a.jpg#manipulated' })).authenticity).toBe('likely_authentic');
  });
});

describe('simulated data looks simulated (issue 32 item 7)', () => {
  it('links under the reserved .example domain; officers named as simulated, each role at most once', async () => {
    const seen = new Set<string>();
    for (const name of ['Acme Widgets Ltd', 'Globex Corporation', 'Initech plc', 'Umbrella Holdings', 'Hooli Ltd', 'Soylent SA']) {
      const r = await sandbox.verifyBusiness({ company_name: name, officers: true, filings: true });
      const roles = r.officers!.map((o) => o.role);
      expect(new Set(roles).size, name).toBe(roles.length);
      expect(r.officers!.every((o) => o.name.endsWith('(simulated)'))).toBe(true);
      for (const u of [...r.evidence.map((e) => e.url), ...r.filings!.map((f) => f.url)]) if (u) seen.add(new URL(u).hostname);
    }
    const claim = await sandbox.verifyClaim({ claim: 'The Eiffel Tower is in Paris' });
    for (const e of claim.evidence) seen.add(new URL(e.url).hostname);
    expect([...seen]).toEqual(['simulated.verity.example']);
  });
});
