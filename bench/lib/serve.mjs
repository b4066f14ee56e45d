// A built `verity serve` on 127.0.0.1 (port 0) for the whole-process benchmarks, and a key made
// for it with `admin keys create`; the caller stops the process (SIGTERM) when done.
import { spawn, spawnSync } from 'node:child_process';

/** A key on the server's database (in env's VERITY_HOME). */
export function createKey(bin, env, { environment, plan }) {
  const made = spawnSync(process.execPath, [bin, 'admin', 'keys', 'create', '--name', 'bench', '--env', environment, '--plan', plan], { env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  return made.stdout.trim();
}

/** Starts serve; resolves with the process and its URL once it prints its ready line. */
export async function startServe(bin, env) {
  const proc = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'silent'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    proc.stderr.on('data', (c) => {
      buf += c;
      const m = /Listening on (\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${buf}`)));
  });
  return { proc, url };
}
