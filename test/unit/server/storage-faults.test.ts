import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toCliError } from '../../../src/cli/errors.js';
import { createGroupCommit } from '../../../src/store/sqlite/group-commit.js';
import { redactUrl } from '../../../src/server/redact.js';
import { storageFaultCause } from '../../../src/store/sqlite/storage-health.js';
import { openStore } from '../../../src/store/local/database.js';

describe('storage faults', () => {
  it('fails the whole group commit when SQLite rolls the transaction back (SQLITE_FULL): nothing half-stored', async () => {
    const store = await openStore(':memory:');
    try {
      const db = store.db;
      db.exec('CREATE TABLE t (v BLOB)');
      db.exec('VACUUM');
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      const writes = createGroupCommit(db);
      const small = (): unknown => db.prepare('INSERT INTO t (v) VALUES (x\'00\')').run();
      const big = (): unknown => db.prepare('INSERT INTO t (v) VALUES (zeroblob(1000000))').run();
      const results = await Promise.allSettled([writes.run(small), writes.run(big), writes.run(small)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      for (const r of results) expect(storageFaultCause((r as PromiseRejectedResult).reason)).toBe('the disk is full');
      expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });

  it('the CLI names cause and path for a real ENOSPC, and for EACCES / EROFS errors of the same shape', () => {
    let enospc: unknown;
    try {
      writeFileSync('/dev/full', 'x');
    } catch (err) {
      enospc = err;
    }
    const e = toCliError(enospc);
    // A write(2) error carries no path; the cause is still named.
    expect(e.message).toBe('Cannot write to disk: no space left on the device (disk full) (ENOSPC)');
    expect(e.exitCode).toBe(1);
    const errno = (code: string) => Object.assign(new Error(`${code}: x`), { code, syscall: 'open', path: '/var/lib/verity/verity.db' });
    expect(toCliError(errno('EACCES')).message).toBe('Cannot open /var/lib/verity/verity.db: permission denied (EACCES)');
    expect(toCliError(errno('EROFS')).message).toMatch(/read-only \(EROFS\)$/);
    expect(toCliError(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY_DBMOVED', path: '/x.db' })).message).toBe(
      'Cannot write /x.db: the database is read-only (SQLITE_READONLY_DBMOVED)',
    );
  });

  it('drops query strings and masks key-shaped path segments in logged URLs', () => {
    const key = `vty_live_${'A'.repeat(32)}`;
    expect(redactUrl(`/v1/webhooks?api_key=${key}`)).toBe('/v1/webhooks?[redacted]');
    expect(redactUrl(`/v1/webhooks/${key}`)).toBe('/v1/webhooks/vty_live_[redacted]');
    expect(redactUrl(`/v1/webhooks/%76ty_live_${'A'.repeat(32)}`)).toBe('/v1/webhooks/vty_live_[redacted]');
    expect(redactUrl('/v1/webhooks/we_abc')).toBe('/v1/webhooks/we_abc');
  });
});
