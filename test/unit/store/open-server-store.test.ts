import { describe, expect, it } from 'vitest';
import { databaseTarget, parsePoolSize } from '../../../src/store/open.js';
import { loadPostgres } from '../../../src/store/postgres/driver.js';
import { connectionGone, PostgresServerStore, postgresFaultCause, reconnectDelaySeconds, redactDatabaseUrl } from '../../../src/store/postgres/index.js';
import { fakePostgres } from '../../helpers/fake-postgres.js';
import { toHttpError } from '../../../src/server/error-handler.js';

describe('choosing the server store', () => {
  it('takes --db postgres://… first, then VERITY_DATABASE_URL, then the SQLite file', () => {
    expect(databaseTarget('postgres://u@h/db', { VERITY_DATABASE_URL: 'postgres://other/x' }, '/d.db')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(databaseTarget('postgresql://u@h/db', {}, '/d.db')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(databaseTarget('/srv/v.db', { VERITY_DATABASE_URL: 'postgres://other/x' }, '/d.db')).toEqual({ kind: 'sqlite', path: '/srv/v.db' });
    expect(databaseTarget(undefined, { VERITY_DATABASE_URL: 'postgres://other/x' }, '/d.db')).toEqual({ kind: 'postgres', url: 'postgres://other/x' });
    expect(databaseTarget(undefined, { VERITY_DATABASE_URL: '' }, '/d.db')).toEqual({ kind: 'sqlite', path: '/d.db' });
    expect(() => databaseTarget(undefined, { VERITY_DATABASE_URL: 'mysql://x' }, '/d.db')).toThrow(/must be a postgres:\/\/ URL/);
  });

  it('checks --pool', () => {
    expect(parsePoolSize(undefined)).toBe(10);
    expect(parsePoolSize('3')).toBe(3);
    for (const bad of ['0', '-1', '2.5', 'x', '1001']) expect(() => parsePoolSize(bad)).toThrow(/--pool must be 1 to 1000/);
  });

  it('never shows the password of a database URL', () => {
    expect(redactDatabaseUrl('postgres://verity:s3cret@db.internal:5432/verity?sslmode=require')).toBe('postgres://verity@db.internal:5432/verity');
    expect(redactDatabaseUrl('not a url')).not.toContain('not a url');
  });

  it('reconnects after 25 ms doubling to at most 1 s (with jitter), not the driver\'s 10-20 s', () => {
    for (const [retries, max] of [[0, 0.025], [1, 0.025], [2, 0.05], [3, 0.1], [8, 1], [30, 1]] as const) {
      const d = reconnectDelaySeconds(retries);
      expect(d, String(retries)).toBeGreaterThanOrEqual(max / 2);
      expect(d, String(retries)).toBeLessThanOrEqual(max);
    }
  });

  it('/healthz reports a database that accepts connections but answers no query as down, after HEALTH_TIMEOUT_MS', async () => {
    const fake = await fakePostgres({ silent: true });
    const postgres = loadPostgres();
    const sql = postgres({ host: '127.0.0.1', port: fake.port, user: 'u', database: 'd', fetch_types: false, max: 1, onnotice: () => undefined });
    const store = new PostgresServerStore(sql, 'postgres://u@127.0.0.1/d', () => undefined);
    try {
      expect(await store.health()).toBe('the database does not answer');
    } finally {
      await sql.end({ timeout: 0 });
      await fake.close();
    }
  });

  it('tells a lost connection (nothing to roll back or release) from an error the session survives', () => {
    for (const code of ['CONNECTION_CLOSED', 'EPIPE', 'ECONNRESET', '57P01', '08006']) expect(connectionGone({ code }), code).toBe(true);
    for (const code of ['40P01', '40001', '53100', '23505', undefined]) expect(connectionGone({ code }), String(code)).toBe(false);
  });

  it('maps PostgreSQL connection and capacity errors to 503 UNAVAILABLE with a short cause', () => {
    expect(postgresFaultCause({ code: 'ECONNREFUSED' })).toBe('the database refuses connections');
    expect(postgresFaultCause({ code: '57P01' })).toBe('the database is shutting down');
    expect(postgresFaultCause({ code: '08006' })).toBe('the database connection failed');
    expect(postgresFaultCause({ code: '23505' })).toBeUndefined(); // a unique violation is a bug, not an outage
    // A write to a connection the server just closed (seen on a restart under load, issue 28).
    expect(postgresFaultCause({ code: 'EPIPE' })).toBe('the database connection was reset');
    expect(postgresFaultCause({ code: 'CONNECTION_CLOSED' })).toBe('the database connection closed');
    const e = toHttpError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }), postgresFaultCause);
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain('the database refuses connections');
    expect(e.message).not.toContain('10.0.0.5');
  });
});
