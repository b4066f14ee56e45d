import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { secretHint, sign, verifySignature } from '../../../src/domain/signature.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

describe('sign', () => {
  it("matches GitHub's published test vector", () => {
    expect(sign("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('is accepted by an independent verifier (@octokit/webhooks-methods)', async () => {
    const body = JSON.stringify({ id: 'wh_x', type: 'verification.completed', data: { é: '✓' } });
    expect(await octokitVerify(SECRET, body, sign(SECRET, body))).toBe(true);
    expect(await octokitVerify(SECRET, `${body} `, sign(SECRET, body))).toBe(false);
  });
});

describe('verifySignature', () => {
  const body = Buffer.from(JSON.stringify({ id: 'wh_abc', type: 'credit.threshold', data: { threshold: 90 } }));
  const good = sign(SECRET, body);

  it('accepts the right secret and says which one matched during a rotation', () => {
    expect(verifySignature([SECRET], body, good)).toEqual({ ok: true, secretIndex: 0 });
    expect(verifySignature(['x'.repeat(40), SECRET], body, good)).toEqual({ ok: true, secretIndex: 1 });
  });

  it.each([
    [undefined, 'missing_header'],
    ['', 'missing_header'],
    [good.replace('sha256=', 'sha1='), 'wrong_prefix'],
    [good.slice('sha256='.length), 'wrong_prefix'],
    [good.slice(0, -2), 'malformed_digest'],
    [good.toUpperCase().replace('SHA256=', 'sha256='), 'malformed_digest'],
    [sign('another-secret-that-is-32-characters-long', body), 'no_secret_matched'],
  ] as const)('refuses %s as %s', (header, problem) => {
    const r = verifySignature([SECRET], body, header);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toBe(problem);
      expect(r.explanation.length).toBeGreaterThan(10);
    }
  });

  it('diagnoses a body that was re-encoded (pretty-printed) after signing', () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    const r = verifySignature([SECRET], pretty, good);
    expect(r).toMatchObject({ ok: false, problem: 'body_reencoded' });
  });

  it('diagnoses a secret read from a file with its trailing newline', () => {
    expect(verifySignature([`${SECRET}\n`], body, good)).toMatchObject({ ok: false, problem: 'secret_whitespace' });
  });

  it('tells a modified body from a re-encoded one', () => {
    const tampered = Buffer.from(body.toString().replace('90', '75'));
    expect(verifySignature([SECRET], tampered, good)).toMatchObject({ ok: false, problem: 'no_secret_matched' });
  });

  it('never shows a secret in full', () => {
    expect(secretHint(SECRET)).toBe('a-webh…ters');
    expect(secretHint('short')).toBe('…');
  });
});
