/**
 * A `verity serve` child process for e2e tests: started on port 0, its stderr collected line by
 * line, `waitFor` resolving on the first line that matches (or failing when serve exits first),
 * so tests wait on what the server says, never on the clock.
 */
import { execa, type ResultPromise } from 'execa';

export interface Served {
  proc: ResultPromise;
  url: string;
  stderr: string[];
  waitFor(re: RegExp): Promise<string>;
}

export async function startServeProcess(bin: string, args: string[], env: Record<string, string>): Promise<Served> {
  const proc = execa('node', [bin, 'serve', '--port', '0', ...args], { env, reject: false });
  const stderr: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  let buf = '';
  proc.stderr!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      stderr.push(line);
      for (const w of [...waiters]) if (w.re.test(line)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(line));
    }
  });
  const waitFor = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = stderr.find((l) => re.test(l));
      if (seen) return resolve(seen);
      waiters.push({ re, resolve });
      void proc.then((r) => reject(new Error(`serve exited (${r.exitCode}) before ${re}: ${stderr.join('\n')}`)));
    });
  const ready = await waitFor(/^Listening on /);
  return { proc, url: ready.replace('Listening on ', '').trim(), stderr, waitFor };
}
