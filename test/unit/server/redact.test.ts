import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../src/server/redact.js';

describe('redactUrl', () => {
  it('masks keys (also percent-encoded) and long tokens, drops the query, and answers a repeated URL the same way', () => {
    const key = `vty_live_${'a'.repeat(32)}`;
    for (let i = 0; i < 2; i++) {
      expect(redactUrl('/v1/verify/claim')).toBe('/v1/verify/claim');
      expect(redactUrl(`/v1/webhooks/${key}`)).toBe('/v1/webhooks/vty_live_[redacted]');
      expect(redactUrl(`/v1/webhooks/%76ty_test_${'b'.repeat(32)}`)).toBe('/v1/webhooks/vty_test_[redacted]');
      expect(redactUrl(`/x/${'Z'.repeat(45)}`)).toBe('/x/[redacted]');
      expect(redactUrl(`/v1/batches?key=${key}`)).toBe('/v1/batches?[redacted]');
    }
  });

  it('keeps answering correctly past the memo bound (many distinct paths)', () => {
    for (let i = 0; i < 2_500; i++) expect(redactUrl(`/v1/batches/bat_${i}`)).toBe(`/v1/batches/bat_${i}`);
    expect(redactUrl(`/v1/batches/vty_test_${'c'.repeat(32)}`)).toBe('/v1/batches/vty_test_[redacted]');
  });
});
