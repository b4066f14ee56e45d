/**
 * Server batches on PostgreSQL with the built CLI (a real server: pg_virtualenv in .ci/run;
 * skipped with a message without one): two `verity serve --db postgres://…` processes on port 0.
 * A 1,000-item batch is sent to the first; that process is stopped (SIGTERM) as soon as its first
 * result is out; the second takes over the batch and finishes it. Every item ends exactly once:
 * 1,000 result lines with 1,000 distinct custom ids and sequence numbers 1..1,000, and the usage
 * ledger charged exactly the batch's credits. And an Idempotency-Key retry of a create is replayed by
 * the other process (the record commits with the batch).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase, reachablePostgres } from '../helpers/postgres.js';
import { startServeProcess, type Served } from './serve-process.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const pgAdmin = await reachablePostgres();
const home = mkdtempSync(join(tmpdir(), 'verity-pg-batches-'));
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '', VERITY_DATABASE_URL: '' };
const N = 1_000;

describe.skipIf(!pgAdmin)('verity serve on PostgreSQL: batches', () => {
  let db: { url: string; drop(): Promise<void> };
  const served: Served[] = [];
  const cli = (args: string[]) => execa('node', [BIN, ...args], { env, reject: false });

  beforeAll(async () => {
    db = await freshDatabase(pgAdmin!);
    served.push(
      ...(await Promise.all([0, 1].map(() => startServeProcess(BIN, ['--db', db.url, '--pool', '4', '--log-level', 'warn'], env)))),
    );
  }, 60_000);

  afterAll(async () => {
    for (const s of served) s.proc.kill('SIGTERM');
    await Promise.allSettled(served.map((s) => s.proc));
    await db?.drop();
    rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('a retried create with the same Idempotency-Key is replayed by the other process (the record commits with the batch)', async () => {
    const made = await cli(['admin', 'keys', 'create', '--name', 'idem', '--env', 'test', '--plan', 'pro', '--account', 'idem', '--db', db.url]);
    expect(made.exitCode, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const body = JSON.stringify({ type: 'claim', items: [{ custom_id: 'one', claim: 'The Eiffel Tower is in Paris' }] });
    const send = (s: Served) =>
      fetch(`${s.url}/v1/batches`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'batch-order-1' },
        body,
      });
    const first = await send(served[0]!);
    expect(first.status).toBe(202);
    const second = await send(served[1]!);
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(((await second.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
  }, 30_000);

  it('a batch survives the process that accepted it stopping mid-run: the other finishes it, every item exactly once', async () => {
    const made = await cli(['admin', 'keys', 'create', '--name', 'batcher', '--env', 'test', '--plan', 'pro', '--account', 'batcher', '--db', db.url]);
    expect(made.exitCode, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const [a, b] = served as [Served, Served];
    const items = Array.from({ length: N }, (_, i) => ({ custom_id: `item-${i}`, claim: `Claim number ${i} about the Eiffel Tower in Paris` }));
    const created = await fetch(`${a.url}/v1/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'claim', items }),
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const { id } = (await created.json()) as { id: string };

    // Stop the accepting process once its first result is out (its own follow stream hears at once).
    const follow = await fetch(`${a.url}/v1/batches/${id}/results?follow=true`, { headers: { authorization: `Bearer ${key}` } });
    const reader = follow.body!.getReader();
    for (let text = ''; !text.includes('custom_id'); ) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
    }
    // The stream is closed first: a graceful stop serves open requests to their end.
    await reader.cancel().catch(() => undefined);
    a.proc.kill('SIGTERM');
    await a.proc;

    const { default: postgres } = await import('postgres');
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      const [mid] = await sql<{ finished: number }[]>`SELECT finished FROM batches WHERE id = ${id}`;
      // The first process really stopped mid-batch (its claims were handed back; the second
      // process may already be running some).
      expect(mid!.finished).toBeLessThan(N);

      // The second process takes the batch over (its runner polls) and ends it; its follow stream ends with it.
      const res = await fetch(`${b.url}/v1/batches/${id}/results?follow=true`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const lines = (await res.text())
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { custom_id: string; seq: number; status: string });
      expect(lines).toHaveLength(N);
      expect(new Set(lines.map((l) => l.custom_id)).size).toBe(N);
      expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      expect(lines.every((l) => l.status === 'succeeded')).toBe(true);

      const batch = (await (await fetch(`${b.url}/v1/batches/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        status: string;
        counts?: unknown;
      };
      expect(batch.status).toBe('completed');
      const [row] = await sql<{ succeeded: number; credits_used: number }[]>`SELECT succeeded, credits_used FROM batches WHERE id = ${id}`;
      expect(row!.succeeded).toBe(N);
      // Charged once per item: the ledger holds exactly the batch's credits and one request per item.
      const [usage] = await sql<{ credits: number; requests: number }[]>`
        SELECT sum(u.credits)::int AS credits, sum(u.requests)::int AS requests FROM usage u JOIN accounts a ON a.id = u.account_id WHERE a.name = 'batcher'`;
      expect(usage).toEqual({ credits: row!.credits_used, requests: N });
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 120_000);
});
