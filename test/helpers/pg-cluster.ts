/**
 * A PostgreSQL cluster of the test's own, which it may stop, start and restart without disturbing
 * the other test files' database (pg_virtualenv's cluster, shared by every file that runs at the
 * same time). Made with postgresql-common's pg_createcluster, as pg_virtualenv makes its own: its
 * configuration, data, log and socket all in a temporary directory (PG_CLUSTER_CONF_ROOT), on a
 * free loopback port, with a random password, dropped afterwards. Offered only where the
 * PostgreSQL tests run (under pg_virtualenv: PGHOST set) and pg_createcluster exists; otherwise
 * `skip` says why.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface OwnCluster {
  /** postgres://postgres:…@127.0.0.1:port/postgres */
  url: string;
  version: string;
  name: string;
  /** `pg_ctlcluster … stop -m fast`: sessions are ended, open transactions rolled back. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  drop(): Promise<void>;
}

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));
}

/** The newest installed server version, as pg_virtualenv picks it (PGVERSION when set). */
function serverVersion(): string | undefined {
  if (process.env.PGVERSION) return process.env.PGVERSION;
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`))
      .sort((a, b) => Number(a) - Number(b))
      .at(-1);
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export async function ownCluster(): Promise<OwnCluster | { skip: string }> {
  if (!process.env.PGHOST && !process.env.VERITY_TEST_DATABASE_URL) return { skip: 'no PostgreSQL test environment (run under pg_virtualenv, see .ci/run)' };
  if (!onPath('pg_createcluster') || !onPath('pg_ctlcluster') || !onPath('pg_dropcluster'))
    return { skip: 'pg_createcluster/pg_ctlcluster (postgresql-common) are not installed: the test needs a cluster of its own to restart' };
  const version = serverVersion();
  if (!version) return { skip: 'no PostgreSQL server version installed under /usr/lib/postgresql' };
  const work = mkdtempSync(join(tmpdir(), 'verity-pg-restart-'));
  const password = randomBytes(12).toString('hex');
  const pwfile = join(work, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  // As root, the cluster's files belong to the postgres user (pg_createcluster runs initdb as it).
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(work, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  const env = { ...process.env, PG_CLUSTER_CONF_ROOT: join(work, 'conf') };
  const name = `verity_restart_${process.pid}`;
  const port = await freePort();
  const run = (cmd: string, args: string[]) => execa(cmd, args, { env, cwd: '/', timeout: 60_000 });
  const drop = async () => {
    await run('pg_ctlcluster', ['--mode', 'immediate', version, name, 'stop']).catch(() => undefined);
    await run('pg_dropcluster', [version, name]).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await run('pg_createcluster', [
      '--quiet', '-p', String(port), '-d', join(work, 'data'), '-l', join(work, 'postgresql.log'),
      '--pgoption', 'fsync=off', '--pgoption', `unix_socket_directories=${work}`,
      version, name, '--', '--username=postgres', `--pwfile=${pwfile}`, '--nosync', '--auth-host=scram-sha-256', '--auth-local=trust',
    ]);
    await run('pg_ctlcluster', [version, name, 'start']);
  } catch (err) {
    // Where the tools are there, a failure to use them is the test's failure, not a reason to skip.
    await drop();
    throw new Error(`Could not make a PostgreSQL cluster for the restart test: ${(err as Error).message}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    version,
    name,
    stop: async (mode = 'fast') => void (await run('pg_ctlcluster', [version, name, 'stop', '-m', mode])),
    start: async () => void (await run('pg_ctlcluster', [version, name, 'start'])),
    drop,
  };
}
